//! `--verify` against files whose bytes the test controls: intact data passes with both local
//! engines, one flipped byte fails with the offset of its block.

use sharebench::target::local::{LocalEngine, LocalTarget};
use sharebench::target::{payload, Discard, IoSettings, OpenMode, Target};
use sharebench::workload::{AccessParams, TestKind};
use std::sync::atomic::AtomicBool;

const RECORD: usize = 64 << 10;
const SIZE: usize = 1 << 20;

fn file_of_records() -> Vec<u8> {
    (0..SIZE / RECORD)
        .flat_map(|i| payload::expected((i * RECORD) as u64, RECORD))
        .collect()
}

fn read_verified(target: &LocalTarget, test: TestKind) -> std::io::Result<()> {
    let io = IoSettings {
        max_io: RECORD,
        queue_depth: 4,
        direct: false,
        verify: true,
    };
    let mut handle = target.open("data.bin", OpenMode::Existing, io)?;
    let mut ops = test.ops(SIZE as u64, RECORD as u64, AccessParams::default(), 9);
    handle.execute(&mut ops, &mut Discard, &AtomicBool::new(false))
}

#[test]
fn verified_reads_pass_intact_data_and_catch_a_flipped_byte() {
    for engine in [LocalEngine::Psync, LocalEngine::IoUring] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.bin");
        let mut data = file_of_records();
        std::fs::write(&path, &data).unwrap();
        let target = LocalTarget::new(dir.path(), engine).unwrap();
        for test in [TestKind::Read, TestKind::RandomRead, TestKind::BackwardRead] {
            read_verified(&target, test).unwrap_or_else(|e| panic!("{engine:?} {test}: {e}"));
        }
        let flipped = 5 * RECORD + 3 * 4096 + 17;
        data[flipped] ^= 0x40;
        std::fs::write(&path, &data).unwrap();
        let error = read_verified(&target, TestKind::RandomRead).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData, "{engine:?}");
        let block = (flipped / 4096 * 4096).to_string();
        assert!(error.to_string().contains(&block), "{engine:?}: {error}");
    }
}
