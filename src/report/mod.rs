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
