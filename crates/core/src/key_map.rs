//! A hash map from small keys (packed boards, automaton signatures) to `u32`, with a fast
//! hasher: A* and the anytime search index their nodes by it, and minimising the pruning
//! automaton numbers its classes by it. SipHash, the standard map's default, guards against
//! adversarial keys that these maps never see, and costs several times more per key.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash-style mixing with a final avalanche: SipHash is several times slower on these small
/// keys, and the map's bucket index comes from the low bits, which a bare multiply leaves weak.
#[derive(Default)]
pub(crate) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline(always)]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    #[inline(always)]
    fn write_u128(&mut self, x: u128) {
        self.write_u64(x as u64);
        self.write_u64((x >> 64) as u64);
    }

    #[inline(always)]
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

pub(crate) type KeyMap<K> = HashMap<K, u32, BuildHasherDefault<KeyHasher>>;
