//! Everything a person or a program reads: the measurement form, matrix grids, exports, the
//! journal and the progress bar. Reports never measure.

pub mod advice;
pub mod bigdir;
pub mod compare;
pub mod form;
pub mod grid;
pub mod html;
pub mod journal;
pub mod png;
pub mod progress;
pub mod sizing;
pub mod svg;
pub mod table;

use crate::workload::TestKind;

/// `items` grouped by their test, tests in the order they first appear (the order they ran).
pub fn by_test<T>(items: &[T], test: impl Fn(&T) -> TestKind) -> Vec<(TestKind, Vec<&T>)> {
    let mut tests: Vec<(TestKind, Vec<&T>)> = Vec::new();
    for item in items {
        let kind = test(item);
        match tests.iter_mut().find(|(t, _)| *t == kind) {
            Some((_, group)) => group.push(item),
            None => tests.push((kind, vec![item])),
        }
    }
    tests
}
