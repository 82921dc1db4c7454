//! `cargo bench -p fifteen-core --bench lookups`: the machine's random-lookup limit, the
//! ceiling for a search whose every node reads pattern-database entries.
//!
//! Reads random bytes from a buffer the size of the 7-8 databases (576 MB), independent reads
//! (the address of one does not depend on another, so the processor overlaps the misses), one
//! thread, with 4 KiB pages and with memory advised for 2 MiB pages. Prints one line per page
//! size: `lookup-limit <pages> <M lookups/s>`.
//!
//! Then, in the 2 MiB buffer, what a lookup costs a core that has other work, the way the
//! searches read: rounds of `burst` prefetches of random entries, then arithmetic (the same
//! amount per lookup in every round), then the reads of the entries prefetched three rounds
//! before. Prints `lookup-among-work <burst> <work ns> <with lookups ns>`, both per lookup:
//! the difference is the time the lookups add that the work does not hide. (Why: on a VM whose
//! host maps guest memory with small pages, each random lookup is a two-level page walk, and
//! a prefetch waits for its walk; how much of that overlaps other work bounds what any search
//! can reach against the limit above.)

use std::hint::black_box;
use std::time::Instant;

use fifteen_core::pdb::prefetch;

/// Bytes of the 4x4 7-8 databases: 16!/9! + 16!/8! entries.
const BYTES: usize = 57_657_600 + 518_918_400;
const READS: u64 = 40_000_000;

fn main() {
    let mut small = vec![0u8; BYTES];
    fill(&mut small);
    report("4KiB", &small);
    drop(small);
    match memmap2::MmapOptions::new().len(BYTES).map_anon() {
        Ok(mut huge) => {
            #[cfg(target_os = "linux")]
            let _ = huge.advise(memmap2::Advice::HugePage);
            fill(&mut huge);
            report("2MiB", &huge);
            for burst in [1, 4, 8] {
                among_work(&huge, burst);
            }
        }
        Err(e) => println!("no anonymous map: {e}"),
    }
}

/// Touches every page, with values that depend on the position.
fn fill(buf: &mut [u8]) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(31);
    }
}

fn report(pages: &str, buf: &[u8]) {
    // Warm-up, then the measured run; best of three.
    let mut best = 0.0f64;
    for _ in 0..3 {
        let t = Instant::now();
        black_box(reads(buf, READS));
        let rate = READS as f64 / t.elapsed().as_secs_f64() / 1e6;
        best = best.max(rate);
    }
    println!("lookup-limit {pages} {best:.1}");
}

/// Sums `n` bytes at pseudo-random positions ([`random_index`] of the counter).
fn reads(buf: &[u8], n: u64) -> u64 {
    let len = buf.len() as u64;
    let mut sum = 0u64;
    for i in 0..n {
        sum = sum.wrapping_add(buf[random_index(i, len)] as u64);
    }
    sum
}

/// A pseudo-random index below `len` for counter `i` (a multiplicative hash, so the addresses
/// are independent of the data read).
#[inline(always)]
fn random_index(i: u64, len: u64) -> usize {
    let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (((x >> 32) * len) >> 32) as usize
}

/// Rounds in one timing of [`rounds`].
const ROUNDS: usize = 1 << 20;
/// Units of [`work`] per lookup: about 15 - 20 ns on a 2020s core, near the searches' own
/// work per lookup.
const WORK_PER_LOOKUP: usize = 12;
/// Rounds between a prefetch and its read.
const DISTANCE: usize = 3;

/// Prints the time per lookup of rounds of `burst` lookups among work, and of the work alone
/// (best of three each).
fn among_work(buf: &[u8], burst: usize) {
    let mut best = [f64::MAX; 2];
    for _ in 0..3 {
        for (lookups, best) in [false, true].into_iter().zip(&mut best) {
            let t = Instant::now();
            black_box(rounds(buf, burst, lookups));
            *best = best.min(t.elapsed().as_nanos() as f64 / (ROUNDS * burst) as f64);
        }
    }
    println!("lookup-among-work {burst} {:.1} {:.1}", best[0], best[1]);
}

/// [`ROUNDS`] rounds: `burst` random indices (prefetched if `lookups`), `burst` times
/// [`WORK_PER_LOOKUP`] units of work, then (if `lookups`) the reads of the entries indexed
/// [`DISTANCE`] rounds before.
fn rounds(buf: &[u8], burst: usize, lookups: bool) -> u64 {
    let len = buf.len() as u64;
    let mut ring = vec![0usize; burst * (DISTANCE + 1)];
    let mut acc = [1u64, 2, 3, 4, 5, 6, 7, 8];
    let mut sum = 0u64;
    for r in 0..ROUNDS {
        let now = (r % (DISTANCE + 1)) * burst;
        for (b, slot) in ring[now..now + burst].iter_mut().enumerate() {
            *slot = random_index((r * burst + b) as u64, len);
            if lookups {
                prefetch(&buf[*slot]);
            }
        }
        for _ in 0..burst * WORK_PER_LOOKUP {
            work(&mut acc);
        }
        if lookups && r >= DISTANCE {
            let old = ((r - DISTANCE) % (DISTANCE + 1)) * burst;
            for &i in &ring[old..old + burst] {
                sum = sum.wrapping_add(u64::from(buf[i]));
            }
        }
    }
    sum.wrapping_add(acc.iter().fold(0, |a, &x| a ^ x))
}

/// One unit of arithmetic: eight independent chains, so that the core runs several
/// instructions per cycle, as a search does.
#[inline(always)]
fn work(a: &mut [u64; 8]) {
    const K: u64 = 0x2745_937F_3F5A_7C1D;
    a[0] = a[0].wrapping_mul(K).wrapping_add(1);
    a[1] = a[1].wrapping_mul(K).wrapping_add(3);
    a[2] = a[2].wrapping_mul(K).wrapping_add(5);
    a[3] ^= a[3] << 3;
    a[4] = a[4].wrapping_add(a[3] >> 2);
    a[5] ^= a[4];
    a[6] = a[6].wrapping_add(a[5]);
    a[7] ^= a[0];
}
