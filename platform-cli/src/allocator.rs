//! The process's allocator, and how it gives memory back.
//!
//! mimalloc serves the many small allocations of a request faster than glibc's allocator
//! (object GETs by id +13%, data GETs of `last(100)` +10-30% in alternating wrk runs on this
//! machine, 32 connections). Left to itself it gave little back after a burst: 8 clients
//! sending bodies that carry strings of 8 MiB (all refused) took a release server from 37 MiB
//! resident to 208 MiB, and it stayed there while the server idled. Three things held it:
//! - transparent huge pages: a 2 MiB page stays resident while any byte of it is in use, so
//!   mimalloc is built without them (the `no_thp` feature);
//! - freed memory is returned to the system only after a delay, and only when an allocation
//!   comes along to do it: a thread here makes it happen every second ([`start_housekeeping`]),
//!   so a busy server keeps reusing its freed buffers and an idle one gives them back;
//! - SQLite allocates with glibc's `malloc`, whose threshold for mapping a large block on its
//!   own rises with each large block freed (up to 32 MiB): a look-up by an 8 MiB key left its
//!   copy in glibc's arenas. The threshold is fixed at 1 MiB ([`configure`]).

// The calls into mimalloc and glibc below are the workspace's only unsafe code.
#![allow(unsafe_code)]

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    /// mimalloc.h: frees what the calling thread's heap keeps, and with `force` purges the
    /// freed memory of every arena at once, without waiting for its delay.
    fn mi_collect(force: bool);
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    /// glibc's malloc.h.
    fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
}

/// Sets the allocators up; called first thing in `main`.
pub fn configure() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// `M_MMAP_THRESHOLD` of glibc's malloc.h.
        const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
        // SAFETY: mallopt only sets a parameter of glibc's allocator; called before any thread
        // but the main one exists.
        unsafe { mallopt(M_MMAP_THRESHOLD, 1 << 20) };
    }
}

/// Gives back to the system what the calling thread's heap keeps free, and the freed memory
/// of every arena (the server's workers call it every second).
pub fn give_back() {
    // SAFETY: mi_collect may be called from any thread at any time.
    unsafe { mi_collect(true) };
}

/// How often freed memory is given back to the system.
const HOUSEKEEPING: std::time::Duration = std::time::Duration::from_secs(1);

/// Starts the thread that gives freed memory back to the system every second (for a process
/// that stays up: `serve`).
pub fn start_housekeeping() {
    let started = std::thread::Builder::new()
        .name("allocator".into())
        .spawn(|| loop {
            std::thread::sleep(HOUSEKEEPING);
            give_back();
        });
    if let Err(e) = started {
        tracing::warn!("the allocator's housekeeping thread did not start: {e}");
    }
}
