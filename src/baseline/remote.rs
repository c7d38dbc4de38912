//! The server's side of a run, through its serve agent: a stream of the server host's metrics
//! for as long as the run lasts.

use super::tcp::{self, Settings};
use super::wire::Mode;
use crate::monitor::sampler::{Sample, Timeline};
use std::io::{self, Read};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Receives the agent's samples in the background until [`finish`](ServerMetrics::finish).
pub struct ServerMetrics {
    stream: TcpStream,
    thread: JoinHandle<()>,
    samples: Receiver<Sample>,
    interval: Duration,
    origin: Instant,
}

impl ServerMetrics {
    /// Asks the agent in `settings` for a sample every `interval`. Samples are timed by their
    /// arrival here, in seconds since `origin`, so they line up with the client's timeline
    /// whatever the two hosts' clocks say.
    pub fn start(
        settings: &Settings,
        interval: Duration,
        origin: Instant,
    ) -> io::Result<ServerMetrics> {
        let asked = Settings {
            bytes: interval.as_millis() as u64,
            ..settings.clone()
        };
        let stream = tcp::open(&asked, Mode::Metrics)?;
        // the agent talks only between samples; the run may go on for hours
        stream.set_read_timeout(None)?;
        let mut reader = stream.try_clone()?;
        let (sender, samples) = mpsc::channel();
        let thread = std::thread::spawn(move || loop {
            let mut len = [0u8; 4];
            if reader.read_exact(&mut len).is_err() {
                return;
            }
            let mut json = vec![0u8; u32::from_be_bytes(len) as usize];
            if reader.read_exact(&mut json).is_err() {
                return;
            }
            let Ok(sample) = serde_json::from_slice::<Sample>(&json) else {
                return;
            };
            let sample = Sample {
                t: origin.elapsed().as_secs_f64(),
                ..sample
            };
            if sender.send(sample).is_err() {
                return;
            }
        });
        Ok(ServerMetrics {
            stream,
            thread,
            samples,
            interval,
            origin,
        })
    }

    /// Waits for the sample that covers this moment (a short run may end before the first one
    /// arrives), then hangs up and returns what arrived.
    pub fn finish(self) -> Timeline {
        let now = self.origin.elapsed().as_secs_f64();
        let deadline = Instant::now() + self.interval * 2 + Duration::from_secs(1);
        let mut samples = Vec::new();
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.samples.recv_timeout(left) {
                Ok(sample) => {
                    let covers = sample.t >= now;
                    samples.push(sample);
                    if covers {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = self.stream.shutdown(Shutdown::Both);
        let _ = self.thread.join();
        samples.extend(self.samples.try_iter());
        Timeline {
            interval_s: self.interval.as_secs_f64(),
            samples,
        }
    }
}
