//! Zeroed memory advised for 2 MiB pages, for data the searches read at random: the resident
//! tables, the long duplicate-path machine's rows, the beam search's set of boards seen.
//!
//! A random read over hundreds of megabytes in 4 KiB pages misses the TLB almost every time,
//! and on this hardware a prefetch that misses the TLB waits for the page walk, so the miss
//! costs as much as the read it was meant to hide. Anonymous memory advised with
//! `MADV_HUGEPAGE` gets 2 MiB pages where the system has transparent huge pages in `madvise`
//! mode (the common default); elsewhere the advice changes nothing and the memory is ordinary.
//!
//! Invariant: a [`HugeBytes`] is zeroed when made, whichever memory it got.

/// Buffers smaller than one 2 MiB page stay on the heap: a mapping would buy nothing.
const HUGE_PAGE: usize = 2 << 20;

/// `len` bytes (at least one) of zeroed anonymous memory advised for 2 MiB pages. Only a hint:
/// without transparent huge pages this is ordinary memory.
pub(crate) fn huge_page_memory(len: usize) -> std::io::Result<memmap2::MmapMut> {
    let memory = memmap2::MmapOptions::new().len(len.max(1)).map_anon()?;
    #[cfg(target_os = "linux")]
    let _ = memory.advise(memmap2::Advice::HugePage);
    Ok(memory)
}

/// A zeroed byte buffer in memory advised for 2 MiB pages when it is at least that large and
/// the mapping succeeds, on the heap otherwise.
#[derive(Debug)]
pub(crate) enum HugeBytes {
    Mapped(memmap2::MmapMut),
    Heap(Vec<u8>),
}

impl HugeBytes {
    /// `len` zero bytes.
    pub(crate) fn zeroed(len: usize) -> HugeBytes {
        if len >= HUGE_PAGE
            && let Ok(map) = huge_page_memory(len)
        {
            return HugeBytes::Mapped(map);
        }
        HugeBytes::Heap(vec![0; len])
    }

    #[inline(always)]
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            HugeBytes::Mapped(map) => map,
            HugeBytes::Heap(v) => v,
        }
    }

    #[inline(always)]
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            HugeBytes::Mapped(map) => map,
            HugeBytes::Heap(v) => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_and_writable_on_either_side_of_the_threshold() {
        for len in [0, 1, 4096, HUGE_PAGE - 1, HUGE_PAGE, 3 * HUGE_PAGE + 5] {
            let mut b = HugeBytes::zeroed(len);
            assert_eq!(b.bytes().len(), len);
            assert!(b.bytes().iter().all(|&x| x == 0), "len {len}");
            if len > 0 {
                b.bytes_mut()[len - 1] = 7;
                assert_eq!(b.bytes()[len - 1], 7);
            }
            assert_eq!(matches!(b, HugeBytes::Mapped(_)), len >= HUGE_PAGE, "len {len}");
        }
    }
}
