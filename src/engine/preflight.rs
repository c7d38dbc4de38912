//! Checks before anything is written: will the benchmark files fit and still leave room?

use crate::target::Space;
use crate::units::format_size;

/// A run may not leave less than this share of the filesystem free.
pub const KEEP_FREE: f64 = 0.05;

/// The file size a run will use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    pub file_size: u64,
    /// The size asked for, when the default had to be reduced to fit.
    pub reduced_from: Option<u64>,
}

/// Fits `workers` files of `file_size` bytes into `space`. A size the user chose is refused
/// when it does not fit; the default is halved until it fits, but not below `smallest`.
pub fn fit(
    space: Option<Space>,
    workers: usize,
    file_size: u64,
    chosen_by_user: bool,
    smallest: u64,
) -> Result<Fit, String> {
    let Some(space) = space else {
        return Ok(Fit {
            file_size,
            reduced_from: None,
        });
    };
    let reserve = (space.total as f64 * KEEP_FREE) as u64;
    let usable = space.free.saturating_sub(reserve);
    let needs = |size: u64| size.saturating_mul(workers as u64);
    if needs(file_size) <= usable {
        return Ok(Fit {
            file_size,
            reduced_from: None,
        });
    }
    let files = if workers == 1 {
        format!("a {} file", format_size(file_size))
    } else {
        format!(
            "{workers} files of {} ({} in all)",
            format_size(file_size),
            format_size(needs(file_size))
        )
    };
    let refusal = format!(
        "not enough free space: {files} would leave less than {:.0} % of {} free",
        KEEP_FREE * 100.0,
        format_size(space.total),
    );
    if chosen_by_user {
        return Err(refusal);
    }
    let mut reduced = file_size;
    while needs(reduced) > usable && reduced / 2 >= smallest.max(1) {
        reduced /= 2;
    }
    if needs(reduced) > usable {
        return Err(refusal);
    }
    Ok(Fit {
        file_size: reduced,
        reduced_from: Some(file_size),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;
    const MIB: u64 = 1 << 20;

    fn space(free: u64) -> Option<Space> {
        Some(Space {
            total: 100 * GIB,
            free,
        })
    }

    #[test]
    fn a_file_that_fits_is_kept() {
        assert_eq!(
            fit(space(50 * GIB), 4, GIB, true, MIB).unwrap(),
            Fit {
                file_size: GIB,
                reduced_from: None
            }
        );
        assert_eq!(fit(None, 4, GIB, true, MIB).unwrap().file_size, GIB);
    }

    #[test]
    fn the_five_percent_reserve_counts() {
        // 6 GiB free of 100: 5 GiB must stay free, so 1 GiB is usable
        assert!(fit(space(6 * GIB), 1, GIB, true, MIB).is_ok());
        let refusal = fit(space(6 * GIB), 2, GIB, true, MIB).unwrap_err();
        assert!(
            refusal.contains("2 files of 1 GiB (2 GiB in all)"),
            "{refusal}"
        );
        assert!(refusal.contains("less than 5 % of 100 GiB"), "{refusal}");
    }

    #[test]
    fn the_default_is_halved_until_it_fits() {
        assert_eq!(
            fit(space(5 * GIB + 300 * MIB), 1, GIB, false, MIB).unwrap(),
            Fit {
                file_size: 256 * MIB,
                reduced_from: Some(GIB)
            }
        );
        assert!(fit(space(5 * GIB), 1, GIB, false, MIB).is_err());
    }
}
