//! Where a forward pass spends its time: wall time in matmuls and in attention, summed over the
//! process while switched on (`index-builder generate --bench` reports it). Off by default, and
//! then free: one relaxed load per call. Nothing is timed in wasm (no clock there).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

static ON: AtomicBool = AtomicBool::new(false);
static MATMUL_NS: AtomicU64 = AtomicU64::new(0);
static ATTENTION_NS: AtomicU64 = AtomicU64::new(0);

/// What is timed.
#[derive(Clone, Copy, Debug)]
pub enum Part {
    /// [`super::QMatrix::matmul`], activation quantization included.
    Matmul,
    /// The decoder's attention over the KV cache.
    Attention,
}

/// Seconds spent in each part since timing was switched on.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Split {
    pub matmul_s: f64,
    pub attention_s: f64,
}

impl std::ops::Sub for Split {
    type Output = Split;
    fn sub(self, o: Split) -> Split {
        Split {
            matmul_s: self.matmul_s - o.matmul_s,
            attention_s: self.attention_s - o.attention_s,
        }
    }
}

/// Switches timing on (from zero) or off.
pub fn enable(on: bool) {
    MATMUL_NS.store(0, Relaxed);
    ATTENTION_NS.store(0, Relaxed);
    ON.store(on, Relaxed);
}

/// The time summed so far.
pub fn read() -> Split {
    Split {
        matmul_s: MATMUL_NS.load(Relaxed) as f64 * 1e-9,
        attention_s: ATTENTION_NS.load(Relaxed) as f64 * 1e-9,
    }
}

/// Runs `f`, adding its wall time to `part` when timing is on.
#[inline]
pub(crate) fn timed<R>(part: Part, f: impl FnOnce() -> R) -> R {
    #[cfg(not(target_arch = "wasm32"))]
    if ON.load(Relaxed) {
        let t = std::time::Instant::now();
        let r = f();
        let slot = match part {
            Part::Matmul => &MATMUL_NS,
            Part::Attention => &ATTENTION_NS,
        };
        slot.fetch_add(t.elapsed().as_nanos() as u64, Relaxed);
        return r;
    }
    let _ = part;
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_is_summed_only_while_on() {
        enable(true);
        timed(Part::Attention, || {
            std::thread::sleep(std::time::Duration::from_millis(5))
        });
        let on = read();
        assert!(on.attention_s >= 0.004, "{on:?}");
        enable(false);
        timed(Part::Matmul, || {
            std::thread::sleep(std::time::Duration::from_millis(2))
        });
        assert_eq!(read(), Split::default());
    }
}
