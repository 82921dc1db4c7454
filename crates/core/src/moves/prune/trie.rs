//! The checked-in form of the forbidden strings: their trie, breadth first, one nibble a node.
//!
//! The minimal forbidden strings are a prefix-free set (a string with a forbidden prefix is not
//! minimal), so in their trie the strings are exactly the leaves. Walking the trie breadth
//! first, children in direction order, each node is written as the four-bit mask of the
//! directions it has children in (bit `d` for direction `d`); a leaf writes 0. Two nodes go in a
//! byte, the first in the low nibble; the last byte may hold a padding nibble, which the
//! reader never reaches. The reader walks the same order, so it gets the strings shortest
//! first and, within a length, in direction order, the order the enumeration gives them.
//!
//! The 1,086,925 strings of up to 18 moves take 2.45 MB so (about 4.9 million nodes), against
//! 8.7 MB as their 64-bit codes alone.

use std::collections::VecDeque;

use super::Moves;

/// The strings of up to `max_len` moves of the trie in `bytes` ([`encode`]'s output), shortest
/// first.
pub(super) fn decode(bytes: &[u8], max_len: usize) -> Vec<Moves> {
    let nibble = |i: usize| bytes.get(i / 2).map_or(0, |b| (b >> (4 * (i % 2))) & 15);
    let mut out = Vec::new();
    let mut queue = VecDeque::from([Moves { code: 0, len: 0 }]);
    let mut i = 0;
    while let Some(m) = queue.pop_front() {
        if usize::from(m.len) > max_len {
            // Breadth first: the rest are as long or longer.
            break;
        }
        let mask = nibble(i);
        i += 1;
        if mask == 0 {
            out.push(m);
            continue;
        }
        for d in 0..4u64 {
            if mask >> d & 1 == 1 {
                queue.push_back(Moves { code: m.code << 2 | d, len: m.len + 1 });
            }
        }
    }
    out
}

/// The trie of `strings` (prefix-free, none empty) in the form [`decode`] reads.
pub(super) fn encode(strings: &[Moves]) -> Vec<u8> {
    // Children per node, the root first; a string's last move leads to a leaf.
    let mut children: Vec<[u32; 4]> = vec![[0; 4]];
    for m in strings {
        assert!(m.len > 0, "the empty string cannot be forbidden");
        let mut node = 0;
        for i in 0..usize::from(m.len) {
            let d = m.dir(i);
            if children[node][d] == 0 {
                children[node][d] = children.len() as u32;
                children.push([0; 4]);
            }
            node = children[node][d] as usize;
        }
        assert_eq!(children[node], [0; 4], "a string is a prefix of another");
    }
    let mut nibbles = Vec::with_capacity(children.len());
    let mut queue = VecDeque::from([0usize]);
    while let Some(node) = queue.pop_front() {
        let mut mask = 0u8;
        for (d, &child) in children[node].iter().enumerate() {
            if child != 0 {
                mask |= 1 << d;
                queue.push_back(child as usize);
            }
        }
        nibbles.push(mask);
    }
    nibbles.chunks(2).map(|p| p[0] | p.get(1).map_or(0, |&b| b << 4)).collect()
}
