//! Stable hashes: the same bytes give the same number on every machine, in every version and
//! in every backend (a database keeps what they computed, so they never change).

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// MurmurHash3's 64-bit finaliser: every bit of the result depends on every bit of `h` (FNV-1a's
/// low bits depend only on the low bits of its input, as its multiply carries upward).
pub fn mix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}
