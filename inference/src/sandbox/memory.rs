//! The sandbox's memory guard: a counting wrapper around the system allocator.
//!
//! Install it in a binary (`#[global_allocator] static A: SandboxAlloc = SandboxAlloc;`).
//! Threads that never call [`arm`] pay one thread-local read per allocation and are never
//! limited. A sandbox worker thread arms a budget; an allocation that would pass it does not
//! return: the thread records the breach in its flag and parks forever (Rust cannot recover from
//! a failed allocation — it aborts the process — so refusing by returning null is not an
//! option). The waiting caller sees the flag and reports `Killed("memory limit")`. In wasm
//! (no parking) the allocation fails instead, which traps the Web Worker.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Budget in bytes; 0 = this thread is not limited.
    static LIMIT: Cell<usize> = const { Cell::new(0) };
    static USED: Cell<usize> = const { Cell::new(0) };
    /// Where to record a breach (an `AtomicBool` the arming thread keeps alive).
    static FLAG: Cell<*const AtomicBool> = const { Cell::new(std::ptr::null()) };
}

/// A `GlobalAlloc` that enforces the per-thread budget set by [`arm`].
pub struct SandboxAlloc;

/// Whether [`SandboxAlloc`] is this program's global allocator (it has served an allocation).
pub fn installed() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// Limits the current thread to `budget` more bytes of live heap. `flag` is set on a breach;
/// the caller must keep it alive for as long as the thread can run (e.g. inside an `Arc` the
/// thread itself holds).
pub fn arm(budget: usize, flag: &AtomicBool) {
    USED.with(|u| u.set(0));
    FLAG.with(|f| f.set(flag as *const AtomicBool));
    LIMIT.with(|l| l.set(budget.max(1)));
}

/// Removes the current thread's budget.
pub fn disarm() {
    LIMIT.with(|l| l.set(0));
    FLAG.with(|f| f.set(std::ptr::null()));
}

/// Accounts `size` new bytes; false when that would pass the budget.
#[inline]
fn charge(size: usize) -> bool {
    let limit = LIMIT.try_with(|l| l.get()).unwrap_or(0);
    if limit == 0 {
        return true;
    }
    let used = USED.with(|u| u.get());
    if used.saturating_add(size) > limit {
        return false;
    }
    USED.with(|u| u.set(used + size));
    true
}

#[inline]
fn credit(size: usize) {
    if LIMIT.try_with(|l| l.get()).unwrap_or(0) != 0 {
        USED.with(|u| u.set(u.get().saturating_sub(size)));
    }
}

#[cold]
fn breach() -> *mut u8 {
    // Stop counting (parking must not recurse into the budget), raise the flag, never return.
    LIMIT.with(|l| l.set(0));
    let flag = FLAG.with(|f| f.get());
    if !flag.is_null() {
        // SAFETY: `arm`'s contract keeps the flag alive while this thread runs.
        unsafe { &*flag }.store(true, Ordering::SeqCst);
    }
    #[cfg(not(target_arch = "wasm32"))]
    loop {
        std::thread::park();
    }
    #[cfg(target_arch = "wasm32")]
    std::ptr::null_mut()
}

unsafe impl GlobalAlloc for SandboxAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !INSTALLED.load(Ordering::Relaxed) {
            INSTALLED.store(true, Ordering::Relaxed);
        }
        if !charge(layout.size()) {
            return breach();
        }
        unsafe { System.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !INSTALLED.load(Ordering::Relaxed) {
            INSTALLED.store(true, Ordering::Relaxed);
        }
        if !charge(layout.size()) {
            return breach();
        }
        unsafe { System.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        credit(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            if !charge(new_size - layout.size()) {
                return breach();
            }
        } else {
            credit(layout.size() - new_size);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}
