//! Unpredictable bytes from the kernel (getrandom(2)), for ids, nonces, salts and secrets.

use std::io;

/// Fills `buf` with random bytes.
pub fn fill(buf: &mut [u8]) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        let rest = &mut buf[done..];
        // SAFETY: the pointer and length describe writable memory we own.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        match n {
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => {}
            -1 => return Err(io::Error::last_os_error()),
            n => done += n as usize,
        }
    }
    Ok(())
}

/// `N` random bytes.
pub fn bytes<const N: usize>() -> io::Result<[u8; N]> {
    let mut buf = [0u8; N];
    fill(&mut buf)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_differ_and_fill_the_whole_buffer() {
        let (a, b) = (bytes::<32>().unwrap(), bytes::<32>().unwrap());
        assert_ne!(a, b);
        let mut big = vec![0u8; 1 << 20];
        fill(&mut big).unwrap();
        // a megabyte of zeros in its last kilobyte would mean it was left unwritten
        assert!(big[big.len() - 1024..].iter().any(|&b| b != 0));
    }
}
