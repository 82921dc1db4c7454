// The page of `fifteen serve`: set up a position, solve it through POST /api/solve, step
// through the answer, and play with hints. The server does all the solving and is the
// authority on what a board means; the page only parses what it can show.
'use strict';

const $ = (id) => document.getElementById(id);

const state = {
  w: 4,
  h: 4,
  cells: [],
  goal: [],
  // The solution being shown: the boards from its start to its end, the record, the step.
  solution: null,
  step: 0,
  timer: null,
  // Edit mode: the cell picked first.
  picked: null,
  // The last hint's path, so that following it needs no new search.
  hint: null,
  request: null,
  elements: new Map(),
};

// ---- boards -------------------------------------------------------------------------------

function range(n) {
  return Array.from({ length: n }, (_, i) => i);
}

function isPermutation(cells) {
  const seen = new Set(cells);
  return seen.size === cells.length && cells.every((t) => Number.isInteger(t) && t >= 0 && t < cells.length);
}

// Numbers and `_` of a text, as rows (lines or `/`-separated parts).
function tokenRows(text) {
  return text
    .replace(/[<>\[\]]/g, ' ')
    .split(/\n|\//)
    .map((row) => row.split(/[\s,]+/).filter((t) => t !== ''))
    .filter((row) => row.length > 0);
}

// {cells, w, h} if the text is a board the page can show, else null (the server then says why).
function parseBoard(text, w, h) {
  const rows = tokenRows(text);
  const tokens = rows.flat();
  if (tokens.some((t) => !/^(\d+|_)$/.test(t))) return null;
  const cells = tokens.map((t) => (t === '_' ? 0 : Number(t)));
  const n = cells.length;
  if (rows.length > 1 && rows.every((r) => r.length === rows[0].length)) {
    w = rows[0].length;
    h = rows.length;
  } else if (n !== w * h) {
    const side = Math.round(Math.sqrt(n));
    if (side * side !== n) return null;
    w = side;
    h = side;
  }
  if (w < 2 || h < 2 || w > 8 || h > 8 || n !== w * h || !isPermutation(cells)) return null;
  return { cells, w, h };
}

function goalKind() {
  return $('goal-kind').value;
}

// The goal's cells for the current size, or null if a custom goal does not fit it.
function goalCells(w, h) {
  const n = w * h;
  switch (goalKind()) {
    case 'blank-first':
      return range(n);
    case 'custom': {
      const parsed = parseBoard($('goal-text').value, w, h);
      return parsed && parsed.w === w && parsed.h === h ? parsed.cells : null;
    }
    default:
      return range(n).map((i) => (i + 1) % n);
  }
}

function goalParam() {
  return goalKind() === 'custom' ? $('goal-text').value : goalKind();
}

function sameCells(a, b) {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

// The board after the tile `tile` slides into the blank (tile moves are what records list).
function slide(cells, tile) {
  const next = cells.slice();
  const from = next.indexOf(tile);
  const to = next.indexOf(0);
  next[to] = tile;
  next[from] = 0;
  return next;
}

function adjacent(a, b, w) {
  const [ra, ca, rb, cb] = [Math.floor(a / w), a % w, Math.floor(b / w), b % w];
  return Math.abs(ra - rb) + Math.abs(ca - cb) === 1;
}

// The boards from `start` along the record's tiles.
function path(start, tiles) {
  const boards = [start.slice()];
  for (const t of tiles) boards.push(slide(boards[boards.length - 1], t));
  return boards;
}

// ---- drawing ------------------------------------------------------------------------------

function cellSize() {
  return Math.max(36, Math.min(84, Math.floor(440 / Math.max(state.w, state.h))));
}

function render(animateMs) {
  const board = $('board');
  const size = cellSize();
  const n = state.w * state.h;
  board.style.setProperty('--cell', `${size}px`);
  board.style.width = `${state.w * size}px`;
  board.style.height = `${state.h * size}px`;
  if (state.elements.size !== n - 1) {
    board.replaceChildren();
    state.elements.clear();
    for (let t = 1; t < n; t++) {
      const el = document.createElement('div');
      el.className = 'tile';
      el.textContent = String(t);
      el.dataset.tile = String(t);
      el.addEventListener('click', () => clickCell(Number(el.dataset.cell)));
      board.appendChild(el);
      state.elements.set(t, el);
    }
  }
  state.cells.forEach((t, cell) => {
    if (t === 0) return;
    const el = state.elements.get(t);
    el.style.transitionDuration = `${animateMs || 0}ms`;
    el.style.transform = `translate(${(cell % state.w) * size}px, ${Math.floor(cell / state.w) * size}px)`;
    el.dataset.cell = String(cell);
    el.classList.toggle('home', state.goal[cell] === t);
    el.classList.toggle('picked', state.picked === cell);
  });
  board.dataset.cells = state.cells.join(' ');
  board.dataset.size = `${state.w}x${state.h}`;
  board.classList.toggle('at-goal', sameCells(state.cells, state.goal));
}

function say(text, bad) {
  const m = $('message');
  m.textContent = text;
  m.classList.toggle('bad', !!bad);
}

function showFacts(record) {
  const dash = '—';
  const solved = record && record.length !== null && record.length !== undefined;
  $('length').textContent = solved ? String(record.length) : dash;
  $('optimal').textContent = !record ? dash : record.optimal ? 'yes (proven)' : solved ? 'not proven' : dash;
  const lb = record && (record.lower_bound ?? (record.optimal ? record.length : null));
  $('lower-bound').textContent = lb === null || lb === undefined ? dash : String(lb);
  $('nodes').textContent = record ? Number(record.nodes).toLocaleString('en') : dash;
  $('time').textContent = record ? `${Number(record.time_ms).toFixed(1)} ms` : dash;
  $('method').textContent = record ? `${record.algorithm}, ${record.heuristic}` : dash;
}

function showMoves() {
  const el = $('moves');
  el.replaceChildren();
  const s = state.solution;
  if (!s || !s.record.moves) return;
  [...s.record.moves].forEach((letter, i) => {
    const span = document.createElement('span');
    span.textContent = letter;
    if (i === state.step) span.className = 'now';
    el.appendChild(span);
  });
}

function showStep() {
  const s = state.solution;
  const step = $('step');
  const atGoal = sameCells(state.cells, state.goal);
  if (s) {
    const n = s.boards.length - 1;
    step.textContent = `move ${state.step} / ${n}` + (state.step === n && atGoal ? ' · goal reached' : '');
  } else {
    step.textContent = atGoal ? 'at the goal' : '';
  }
  step.classList.toggle('done', atGoal);
  const has = !!s;
  const n = has ? s.boards.length - 1 : 0;
  $('first').disabled = !has || state.step === 0;
  $('back').disabled = !has || state.step === 0;
  $('forward').disabled = !has || state.step === n;
  $('last').disabled = !has || state.step === n;
  $('play').disabled = !has || (state.step === n && !state.timer);
  $('play').textContent = state.timer ? '‖ pause' : '▶ play';
  showMoves();
}

// ---- setting up ---------------------------------------------------------------------------

function fillSizes() {
  for (const id of ['width', 'height']) {
    const sel = $(id);
    for (let s = 2; s <= 8; s++) sel.add(new Option(String(s), String(s), s === 4, s === 4));
  }
}

// Shows `cells` of size w x h as the new position: forgets any solution.
function setPosition(cells, w, h) {
  stop();
  if (w !== state.w || h !== state.h) {
    state.w = w;
    state.h = h;
    $('width').value = String(w);
    $('height').value = String(h);
  }
  state.goal = goalCells(w, h) || range(w * h).map((i) => (i + 1) % (w * h));
  state.cells = cells.slice();
  state.solution = null;
  state.picked = null;
  showFacts(null);
  render(0);
  showStep();
}

function sizeChanged() {
  const w = Number($('width').value);
  const h = Number($('height').value);
  state.w = w;
  state.h = h;
  const goal = goalCells(w, h);
  setPosition(goal || range(w * h).map((i) => (i + 1) % (w * h)), w, h);
  say(goal ? '' : `the custom goal is not a ${w}x${h} board`, !goal);
}

function goalChanged() {
  $('goal-row').hidden = goalKind() !== 'custom';
  const goal = goalCells(state.w, state.h);
  if (!goal) {
    say(goalKind() === 'custom' && $('goal-text').value.trim() === ''
      ? 'type the goal arrangement'
      : `the custom goal is not a ${state.w}x${state.h} board`, true);
    return;
  }
  say('');
  state.goal = goal;
  state.solution = null;
  state.hint = null;
  showFacts(null);
  render(0);
  showStep();
}

async function setFromText() {
  const text = $('board-text').value;
  const parsed = parseBoard(text, state.w, state.h);
  if (parsed) {
    setPosition(parsed.cells, parsed.w, parsed.h);
    say('');
    return;
  }
  // Let the server say what is wrong, exactly as the command line would (or read a form the
  // page does not know, and solve it).
  const answer = await solveRequest({ board: text, goal: goalParam() });
  if (!answer) return;
  const rec = answer.record;
  const shown = rec.board && rec.size ? parseBoard(rec.board, ...rec.size.split('x').map(Number)) : null;
  if (shown) {
    setPosition(shown.cells, shown.w, shown.h);
    report(answer, shown.cells);
    if (rec.status === 'solved') state.hint = { boards: state.solution.boards, record: rec };
  } else {
    report(answer, null);
  }
}

async function scramble() {
  const params = new URLSearchParams({
    size: `${state.w}x${state.h}`,
    goal: goalParam(),
    seed: String(Math.floor(Math.random() * 2 ** 32)),
  });
  const moves = $('scramble-kind').value;
  if (moves) params.set('moves', moves);
  try {
    const r = await fetch(`api/random?${params}`);
    const j = await r.json();
    if (!r.ok) return say(j.error || `error ${r.status}`, true);
    const parsed = parseBoard(j.board, state.w, state.h);
    if (!parsed) return say(`unexpected board from the server: ${j.board}`, true);
    setPosition(parsed.cells, state.w, state.h);
    $('board-text').value = j.board;
    say(`scrambled (seed ${j.seed})`);
  } catch (e) {
    say(`cannot reach the server: ${e.message}`, true);
  }
}

// ---- solving ------------------------------------------------------------------------------

function busy(on) {
  $('solve').disabled = on;
  $('hint').disabled = on;
  $('cancel').hidden = !on;
}

// POSTs to /api/solve; answers {status, record} or null if cancelled or unreachable.
async function solveRequest(body) {
  if (state.request) state.request.abort();
  const ctrl = new AbortController();
  state.request = ctrl;
  busy(true);
  say('solving…');
  try {
    const r = await fetch('api/solve', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ size: `${state.w}x${state.h}`, ...body }),
      signal: ctrl.signal,
    });
    const record = await r.json();
    if (r.status === 503) {
      say(`${record.error} (retry after ${r.headers.get('retry-after') || 1} s)`, true);
      return null;
    }
    return { status: r.status, record };
  } catch (e) {
    say(ctrl.signal.aborted ? 'cancelled' : `cannot reach the server: ${e.message}`, !ctrl.signal.aborted);
    return null;
  } finally {
    if (state.request === ctrl) state.request = null;
    busy(false);
  }
}

function boardBody() {
  return { board: state.cells.join(' '), goal: goalParam() };
}

// Shows an answer; with `start`, loads its solution for playback.
function report(answer, start) {
  const rec = answer.record;
  showFacts(rec.status ? rec : null);
  if (rec.status === 'solved' && start) {
    state.solution = { boards: path(start, rec.tiles), record: rec };
    state.step = 0;
    const verdict = rec.optimal ? 'proven optimal' : `not proven optimal; at least ${rec.lower_bound ?? '?'} moves`;
    say(`${rec.length} moves, ${verdict}. Press play or step through it.`);
  } else if (rec.status === 'solved') {
    say(`${rec.length} moves`);
  } else if (rec.status === 'limit') {
    say(`gave up: ${rec.error}`, true);
  } else {
    say(rec.error || `error ${answer.status}`, true);
  }
  showStep();
}

async function solve() {
  stop();
  const start = state.cells.slice();
  const answer = await solveRequest(boardBody());
  if (!answer) return;
  if (!sameCells(start, state.cells)) return say('the position changed while solving; solve again');
  report(answer, start);
  if (answer.record.status === 'solved') {
    state.hint = { boards: state.solution.boards, record: answer.record };
  }
}

// ---- playback -----------------------------------------------------------------------------

function speed() {
  return Number($('speed').value);
}

function goTo(step, animate) {
  const s = state.solution;
  if (!s) return;
  state.step = Math.max(0, Math.min(step, s.boards.length - 1));
  state.cells = s.boards[state.step].slice();
  render(animate ? Math.min(400, 700 / speed()) : 0);
  showStep();
}

function stop() {
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
}

function tick() {
  const s = state.solution;
  if (!s || state.step >= s.boards.length - 1) {
    stop();
    showStep();
    return;
  }
  goTo(state.step + 1, true);
  state.timer = setTimeout(tick, 1000 / speed());
  showStep();
}

function togglePlay() {
  if (state.timer) {
    stop();
  } else if (state.solution) {
    if (state.step >= state.solution.boards.length - 1) goTo(0, false);
    state.timer = setTimeout(tick, 150);
  }
  showStep();
}

// ---- playing ------------------------------------------------------------------------------

// The player slides the tile on `cell` (and the ones between it and the blank).
function clickCell(cell) {
  if ($('edit').checked) return pick(cell);
  const blank = state.cells.indexOf(0);
  const w = state.w;
  const sameRow = Math.floor(cell / w) === Math.floor(blank / w);
  const sameCol = cell % w === blank % w;
  if (cell === blank || !(sameRow || sameCol)) return;
  const stepBy = sameRow ? (cell > blank ? 1 : -1) : cell > blank ? w : -w;
  for (let c = blank + stepBy; ; c += stepBy) {
    playerMove(state.cells[c]);
    if (c === cell) break;
  }
}

function playerMove(tile) {
  const next = slide(state.cells, tile);
  stop();
  const s = state.solution;
  if (s && state.step < s.boards.length - 1 && sameCells(next, s.boards[state.step + 1])) {
    return goTo(state.step + 1, true);
  }
  if (s && state.step > 0 && sameCells(next, s.boards[state.step - 1])) {
    return goTo(state.step - 1, true);
  }
  state.solution = null;
  state.cells = next;
  render(120);
  showStep();
  if (sameCells(state.cells, state.goal)) say('solved!');
}

function keyMove(key) {
  const blank = state.cells.indexOf(0);
  const w = state.w;
  const n = state.cells.length;
  // The arrow is the direction the tile slides.
  const from = {
    ArrowUp: blank + w < n ? blank + w : -1,
    ArrowDown: blank - w,
    ArrowLeft: blank % w < w - 1 ? blank + 1 : -1,
    ArrowRight: blank % w > 0 ? blank - 1 : -1,
  }[key];
  if (from >= 0 && from < n) playerMove(state.cells[from]);
}

function pick(cell) {
  if (state.picked === null) {
    state.picked = cell;
  } else {
    const cells = state.cells.slice();
    [cells[state.picked], cells[cell]] = [cells[cell], cells[state.picked]];
    state.picked = null;
    setPosition(cells, state.w, state.h);
    $('board-text').value = cells.join(' ');
    return;
  }
  render(0);
}

const WORDS = { U: 'up', D: 'down', L: 'left', R: 'right' };

async function hint() {
  let h = state.hint;
  let k = h ? h.boards.findIndex((b) => sameCells(b, state.cells)) : -1;
  if (k < 0) {
    const start = state.cells.slice();
    const answer = await solveRequest(boardBody());
    if (!answer) return;
    if (answer.record.status !== 'solved') return report(answer, null);
    h = { boards: path(start, answer.record.tiles), record: answer.record };
    state.hint = h;
    k = h.boards.findIndex((b) => sameCells(b, state.cells));
    if (k < 0) return say('the position changed while thinking; ask again');
  }
  const rec = h.record;
  const left = h.boards.length - 1 - k;
  if (left === 0) return say('this is the goal');
  const tile = rec.tiles[k];
  const dir = WORDS[rec.moves[k]] || rec.moves[k];
  const distance = rec.optimal
    ? `${left} moves from the goal`
    : `at most ${left} moves from the goal (at least ${Math.max(0, (rec.lower_bound ?? 0) - k)})`;
  say(`hint: slide tile ${tile} ${dir}; ${distance}`);
  const el = state.elements.get(tile);
  if (el) {
    el.classList.remove('hinted');
    void el.offsetWidth;
    el.classList.add('hinted');
  }
}

// ---- wiring -------------------------------------------------------------------------------

function init() {
  fillSizes();
  $('width').addEventListener('change', sizeChanged);
  $('height').addEventListener('change', sizeChanged);
  $('goal-kind').addEventListener('change', goalChanged);
  $('goal-text').addEventListener('change', goalChanged);
  $('set').addEventListener('click', setFromText);
  $('scramble').addEventListener('click', scramble);
  $('to-goal').addEventListener('click', () => setPosition(state.goal, state.w, state.h));
  $('solve').addEventListener('click', solve);
  $('cancel').addEventListener('click', () => state.request && state.request.abort());
  $('hint').addEventListener('click', hint);
  $('first').addEventListener('click', () => { stop(); goTo(0, false); });
  $('back').addEventListener('click', () => { stop(); goTo(state.step - 1, true); });
  $('forward').addEventListener('click', () => { stop(); goTo(state.step + 1, true); });
  $('last').addEventListener('click', () => { stop(); goTo(Infinity, false); });
  $('play').addEventListener('click', togglePlay);
  $('speed').addEventListener('input', () => { $('speed-text').textContent = String(speed()); });
  $('edit').addEventListener('change', () => { state.picked = null; render(0); });
  document.addEventListener('keydown', (e) => {
    if (e.target.closest && e.target.closest('input, textarea, select')) return;
    if (e.key.startsWith('Arrow')) {
      keyMove(e.key);
    } else if (e.key === ' ') {
      togglePlay();
    } else if (e.key === ',') {
      stop(); goTo(state.step - 1, true);
    } else if (e.key === '.') {
      stop(); goTo(state.step + 1, true);
    } else if (e.key === 'Home') {
      stop(); goTo(0, false);
    } else if (e.key === 'End') {
      stop(); goTo(Infinity, false);
    } else if (e.key === 'h') {
      hint();
    } else {
      return;
    }
    e.preventDefault();
  });
  setPosition(goalCells(4, 4), 4, 4);
}

init();
