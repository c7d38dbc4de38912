//! The iozone test set, each with iozone's meaning, as streams of requests.

use super::order::{mix, Order, Permutation};
use crate::target::Op;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// One benchmark test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestKind {
    /// Write a new file (its creation and block allocation are part of the cost).
    Write,
    /// Write over an existing file.
    Rewrite,
    /// Read a file sequentially.
    Read,
    /// Read a file that was just read (a page-cache test).
    Reread,
    /// Read records in random order.
    RandomRead,
    /// Write records in random order into an existing file.
    RandomWrite,
    /// Read a file from its end to its start.
    BackwardRead,
    /// Write the same record again and again (a cache test of one hot spot).
    RecordRewrite,
    /// Read every `stride`-th record.
    StrideRead,
    /// Random reads and writes, `read_pct` percent reads.
    Mixed,
    /// Metadata: create entries in a directory of a given size (then taken away, untimed).
    Create,
    /// Metadata: look up random entries of a directory and read their attributes.
    Stat,
    /// Metadata: list the whole directory.
    List,
    /// Metadata: remove entries from a directory of a given size (then put back, untimed).
    Remove,
}

/// Settings some tests use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct AccessParams {
    /// Records between two stride-read requests.
    pub stride: u64,
    /// Share of reads in the mixed test, in percent.
    pub read_pct: u8,
}

impl Default for AccessParams {
    fn default() -> Self {
        AccessParams {
            // iozone's default stride
            stride: 17,
            read_pct: 70,
        }
    }
}

impl TestKind {
    pub const ALL: [TestKind; 10] = [
        TestKind::Write,
        TestKind::Rewrite,
        TestKind::Read,
        TestKind::Reread,
        TestKind::RandomRead,
        TestKind::RandomWrite,
        TestKind::BackwardRead,
        TestKind::RecordRewrite,
        TestKind::StrideRead,
        TestKind::Mixed,
    ];

    pub const DEFAULT: [TestKind; 4] = [
        TestKind::Write,
        TestKind::Read,
        TestKind::RandomRead,
        TestKind::RandomWrite,
    ];

    /// The big-directory tests, which count operations instead of bytes.
    pub const METADATA: [TestKind; 4] = [
        TestKind::Create,
        TestKind::Stat,
        TestKind::List,
        TestKind::Remove,
    ];

    pub fn is_metadata(self) -> bool {
        TestKind::METADATA.contains(&self)
    }

    pub fn name(self) -> &'static str {
        match self {
            TestKind::Write => "write",
            TestKind::Rewrite => "rewrite",
            TestKind::Read => "read",
            TestKind::Reread => "reread",
            TestKind::RandomRead => "random-read",
            TestKind::RandomWrite => "random-write",
            TestKind::BackwardRead => "backward-read",
            TestKind::RecordRewrite => "record-rewrite",
            TestKind::StrideRead => "stride-read",
            TestKind::Mixed => "mixed",
            TestKind::Create => "create",
            TestKind::Stat => "stat",
            TestKind::List => "list",
            TestKind::Remove => "remove",
        }
    }

    /// True for data tests that need the file to exist, filled, before they start.
    pub fn needs_file(self) -> bool {
        self != TestKind::Write && !self.is_metadata()
    }

    /// True for tests that write (and so take `--fsync`).
    pub fn writes(self) -> bool {
        matches!(
            self,
            TestKind::Write
                | TestKind::Rewrite
                | TestKind::RandomWrite
                | TestKind::RecordRewrite
                | TestKind::Mixed
        )
    }

    /// True for tests whose requests jump around the file; they default to small records.
    pub fn is_random(self) -> bool {
        matches!(
            self,
            TestKind::RandomRead
                | TestKind::RandomWrite
                | TestKind::Mixed
                | TestKind::StrideRead
                | TestKind::RecordRewrite
        )
    }

    /// True for tests that need to read or write at any offset (all but write and read), which
    /// a streaming protocol such as FTP cannot do.
    pub fn needs_random_access(self) -> bool {
        !matches!(self, TestKind::Write | TestKind::Read) && !self.is_metadata()
    }

    /// True for tests that measure the cache by design: caches are never dropped before them.
    pub fn is_cache_test(self) -> bool {
        matches!(self, TestKind::Reread | TestKind::RecordRewrite)
    }

    /// The default record size: 1 MiB for streaming tests, 4 KiB for random ones.
    pub fn default_record_size(self) -> u64 {
        if self.is_random() {
            4 << 10
        } else {
            1 << 20
        }
    }

    /// The requests of one pass over a file (none for a metadata test). `seed` varies the random
    /// orders between workers and runs so that no two passes hit the same sequence.
    pub fn ops(self, file_size: u64, record_size: u64, params: AccessParams, seed: u64) -> Ops {
        let records = if self.is_metadata() {
            0
        } else {
            file_size / record_size
        };
        let order = match self {
            TestKind::Write
            | TestKind::Rewrite
            | TestKind::Read
            | TestKind::Reread
            | TestKind::Create
            | TestKind::Stat
            | TestKind::List
            | TestKind::Remove => Order::Forward,
            TestKind::BackwardRead => Order::Backward,
            TestKind::StrideRead => Order::Stride(params.stride),
            TestKind::RecordRewrite => Order::HotSpot,
            TestKind::RandomRead | TestKind::RandomWrite | TestKind::Mixed => {
                Order::Shuffled(Permutation::new(records, seed))
            }
        };
        let action = match self {
            TestKind::Mixed => Action::Mixed {
                read_below: params.read_pct as u64,
                seed: mix(seed ^ 0x5EED),
            },
            _ if self.writes() => Action::Write,
            _ => Action::Read,
        };
        Ops {
            order,
            action,
            records,
            record_size,
            next: 0,
        }
    }
}

impl fmt::Display for TestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TestKind {
    type Err = String;
    fn from_str(name: &str) -> Result<Self, String> {
        let name = name.trim().to_ascii_lowercase().replace('_', "-");
        TestKind::ALL
            .into_iter()
            .chain(TestKind::METADATA)
            .find(|test| test.name() == name)
            .ok_or_else(|| {
                let known: Vec<_> = TestKind::ALL.iter().map(|t| t.name()).collect();
                let metadata: Vec<_> = TestKind::METADATA.iter().map(|t| t.name()).collect();
                format!(
                    "unknown test '{name}'; the tests are {}, and for bigdir {}",
                    known.join(", "),
                    metadata.join(", ")
                )
            })
    }
}

#[derive(Debug, Clone)]
enum Action {
    Read,
    Write,
    /// A request is a read when `mix(seed + i) % 100 < read_below`.
    Mixed {
        read_below: u64,
        seed: u64,
    },
}

/// The requests of one pass, generated on the fly.
#[derive(Debug, Clone)]
pub struct Ops {
    order: Order,
    action: Action,
    records: u64,
    record_size: u64,
    next: u64,
}

impl Iterator for Ops {
    type Item = Op;

    #[inline]
    fn next(&mut self) -> Option<Op> {
        if self.next >= self.records {
            return None;
        }
        let i = self.next;
        self.next += 1;
        let write = match self.action {
            Action::Read => false,
            Action::Write => true,
            Action::Mixed { read_below, seed } => mix(seed.wrapping_add(i)) % 100 >= read_below,
        };
        Some(Op {
            offset: self.order.record(i, self.records) * self.record_size,
            len: self.record_size as usize,
            write,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.records - self.next) as usize;
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: u64 = 1024;

    fn offsets(test: TestKind, file: u64, record: u64) -> Vec<u64> {
        test.ops(file, record, AccessParams::default(), 7)
            .map(|op| op.offset)
            .collect()
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for test in TestKind::ALL {
            assert_eq!(test.name().parse::<TestKind>().unwrap(), test);
        }
        assert_eq!(
            "Random_Read".parse::<TestKind>().unwrap(),
            TestKind::RandomRead
        );
        let error = "randread".parse::<TestKind>().unwrap_err();
        assert!(error.contains("unknown test 'randread'"), "{error}");
        assert!(error.contains("stride-read"), "{error}");
    }

    #[test]
    fn sequential_tests_go_forward() {
        assert_eq!(
            offsets(TestKind::Read, 16 * KIB, 4 * KIB),
            [0, 4096, 8192, 12288]
        );
        assert_eq!(offsets(TestKind::Write, 8 * KIB, 4 * KIB), [0, 4096]);
    }

    #[test]
    fn backward_read_really_goes_backward() {
        assert_eq!(
            offsets(TestKind::BackwardRead, 16 * KIB, 4 * KIB),
            [12288, 8192, 4096, 0]
        );
    }

    #[test]
    fn stride_read_strides_and_covers_the_file() {
        let params = AccessParams {
            stride: 3,
            read_pct: 70,
        };
        let got: Vec<u64> = TestKind::StrideRead
            .ops(8 * KIB, KIB, params, 0)
            .map(|op| op.offset / KIB)
            .collect();
        assert_eq!(got, [0, 3, 6, 1, 4, 7, 2, 5]);
    }

    #[test]
    fn random_tests_cover_the_file_in_random_order() {
        for test in [TestKind::RandomRead, TestKind::RandomWrite, TestKind::Mixed] {
            let got = offsets(test, 1024 * KIB, 4 * KIB);
            let mut sorted = got.clone();
            sorted.sort_unstable();
            let all: Vec<u64> = (0..256).map(|r| r * 4 * KIB).collect();
            assert_eq!(sorted, all, "{test} covers every record once");
            assert_ne!(got, all, "{test} is not sequential");
        }
    }

    #[test]
    fn record_rewrite_hits_one_spot() {
        let ops: Vec<Op> = TestKind::RecordRewrite
            .ops(64 * KIB, 4 * KIB, AccessParams::default(), 0)
            .collect();
        assert_eq!(ops.len(), 16);
        assert!(ops.iter().all(|op| op.offset == 0 && op.write));
    }

    #[test]
    fn mixed_reads_the_asked_share() {
        let params = AccessParams {
            stride: 17,
            read_pct: 70,
        };
        let ops: Vec<Op> = TestKind::Mixed.ops(40_000 * KIB, KIB, params, 3).collect();
        let reads = ops.iter().filter(|op| !op.write).count() as f64 / ops.len() as f64;
        assert!((reads - 0.70).abs() < 0.01, "read share {reads}");
    }

    #[test]
    fn reads_read_and_writes_write() {
        let params = AccessParams::default();
        for test in TestKind::ALL {
            if test == TestKind::Mixed {
                continue;
            }
            let writes = test.ops(64 * KIB, 4 * KIB, params, 1).all(|op| op.write);
            let reads = test.ops(64 * KIB, 4 * KIB, params, 1).all(|op| !op.write);
            assert_eq!(writes, test.writes(), "{test}");
            assert_eq!(reads, !test.writes(), "{test}");
        }
    }

    #[test]
    fn partial_last_record_is_not_issued() {
        assert_eq!(offsets(TestKind::Read, 10 * KIB, 4 * KIB), [0, 4096]);
    }
}
