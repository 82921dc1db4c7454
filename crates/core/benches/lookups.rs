//! `cargo bench -p fifteen-core --bench lookups`: the machine's random-lookup limit, the
//! ceiling for a search whose every node reads pattern-database entries.
//!
//! Reads random bytes from a buffer the size of the 7-8 databases (576 MB), independent reads
//! (the address of one does not depend on another, so the processor overlaps the misses), one
//! thread, with 4 KiB pages and with memory advised for 2 MiB pages. Prints one line per page
//! size: `lookup-limit <pages> <M lookups/s>`.

use std::hint::black_box;
use std::time::Instant;

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

/// Sums `n` bytes at pseudo-random positions (a multiplicative hash of the counter, so the
/// addresses are independent of the data read).
fn reads(buf: &[u8], n: u64) -> u64 {
    let len = buf.len() as u64;
    let mut sum = 0u64;
    for i in 0..n {
        let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let index = ((x >> 32) * len) >> 32;
        sum = sum.wrapping_add(buf[index as usize] as u64);
    }
    sum
}
