//! The order in which a test visits the records of a file.
//!
//! Every order maps a request number `i` in `0..records` to a record number, touches each record
//! exactly once (except the hot spot), and needs no table: a 1 TiB file of 4 KiB records costs no
//! memory and no set-up time.

/// Visiting order of records.
#[derive(Debug, Clone)]
pub enum Order {
    /// 0, 1, 2, …
    Forward,
    /// Last record first.
    Backward,
    /// Every `stride`-th record, then the same from record 1, 2, … (iozone's stride read covers
    /// the file this way).
    Stride(u64),
    /// A pseudo-random permutation: random offsets that still cover the whole file.
    Shuffled(Permutation),
    /// The same record every time (iozone's record rewrite of one spot).
    HotSpot,
}

impl Order {
    /// The record visited by request `i` of a file of `records` records.
    #[inline]
    pub fn record(&self, i: u64, records: u64) -> u64 {
        match self {
            Order::Forward => i,
            Order::Backward => records - 1 - i,
            Order::Stride(stride) => stride_record(i, records, *stride),
            Order::Shuffled(permutation) => permutation.at(i),
            Order::HotSpot => 0,
        }
    }
}

/// Request `i` of a strided pass: lanes 0..stride, each lane every stride-th record from its start.
fn stride_record(i: u64, records: u64, stride: u64) -> u64 {
    let stride = stride.clamp(1, records.max(1));
    let (short_len, long_lanes) = (records / stride, records % stride);
    let long_len = short_len + 1;
    let (lane, step) = if i < long_lanes * long_len {
        (i / long_len, i % long_len)
    } else {
        let rest = i - long_lanes * long_len;
        (long_lanes + rest / short_len, rest % short_len)
    };
    lane + step * stride
}

/// A keyed bijection of `0..len`: a four-round Feistel network over the smallest even-bit power
/// of two that holds `len`, with cycle walking to stay below `len`. Each step costs a few
/// multiplications; the domain is at most 4 × `len`, so a walk takes under four steps on average.
#[derive(Debug, Clone)]
pub struct Permutation {
    len: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    pub fn new(len: u64, seed: u64) -> Permutation {
        let bits = (64 - len.saturating_sub(1).leading_zeros()).max(2);
        let mut state = seed;
        let keys = std::array::from_fn(|_| {
            state = mix(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
            state
        });
        Permutation {
            len,
            half_bits: bits.div_ceil(2),
            keys,
        }
    }

    #[inline]
    pub fn at(&self, i: u64) -> u64 {
        let mut x = self.feistel(i);
        while x >= self.len {
            x = self.feistel(x);
        }
        x
    }

    #[inline]
    fn feistel(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut left, mut right) = (x >> self.half_bits, x & mask);
        for key in self.keys {
            let next = left ^ (mix(right ^ key) & mask);
            left = right;
            right = next;
        }
        (left << self.half_bits) | right
    }
}

/// The splitmix64 finaliser: a cheap, well-spread 64-bit hash.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visits(order: &Order, records: u64) -> Vec<u64> {
        (0..records).map(|i| order.record(i, records)).collect()
    }

    fn sorted(mut v: Vec<u64>) -> Vec<u64> {
        v.sort_unstable();
        v
    }

    #[test]
    fn stride_visits_lanes_in_turn() {
        assert_eq!(
            visits(&Order::Stride(3), 10),
            vec![0, 3, 6, 9, 1, 4, 7, 2, 5, 8]
        );
        assert_eq!(visits(&Order::Stride(1), 4), vec![0, 1, 2, 3]);
        assert_eq!(visits(&Order::Stride(17), 5), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn permutations_cover_every_record_once() {
        for len in [1u64, 2, 3, 5, 64, 1000, 4097] {
            let order = Order::Shuffled(Permutation::new(len, 42));
            assert_eq!(sorted(visits(&order, len)), (0..len).collect::<Vec<_>>());
        }
    }

    #[test]
    fn permutations_are_not_sequential_and_depend_on_the_seed() {
        let a = visits(&Order::Shuffled(Permutation::new(1000, 1)), 1000);
        let b = visits(&Order::Shuffled(Permutation::new(1000, 2)), 1000);
        let in_place = a
            .iter()
            .enumerate()
            .filter(|(i, &r)| *i as u64 == r)
            .count();
        assert!(in_place < 20, "{in_place} records stayed in place");
        assert_ne!(a, b);
        let ascending_steps = a.windows(2).filter(|w| w[1] == w[0] + 1).count();
        assert!(ascending_steps < 20, "{ascending_steps} sequential steps");
    }
}
