//! The CPU time this process has used, for the client CPU a run cost.

/// User plus system seconds used by every thread of this process so far.
pub fn process_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF is always valid.
    let usage = unsafe {
        if libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) != 0 {
            return 0.0;
        }
        usage.assume_init()
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_shows_up_as_cpu_time() {
        let before = process_seconds();
        let start = std::time::Instant::now();
        let mut x = 1u64;
        // computes until the counter moves by 10 ms; a counter that never moves fails after 10 s
        while process_seconds() - before < 0.01 && start.elapsed().as_secs() < 10 {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        assert!(process_seconds() - before >= 0.01);
    }
}
