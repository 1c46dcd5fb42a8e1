//! The `dpaudit` binary: a thin shell over the library's command line, [`dpaudit::cli::main`].

fn main() -> std::process::ExitCode {
    // A reader that stops early (`dpaudit eval … | head`) closes the pipe; with Rust's default
    // (SIGPIPE ignored) the next print panicked with exit status 101. Restore the default
    // action, so the process ends quietly like any Unix filter.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // glibc serves each allocation above 32 MiB with a fresh mmap and returns it on free, so
    // every pass of the discretised accountant (FFT buffers of 16–256 MiB) faulted its pages in
    // anew: 30 % of the time at q = 1e-6, sigma = 0.4, T = 1e5 (186k minor faults; 100k with
    // this). Large blocks come from the heap instead, and freed memory is kept for the next
    // pass (the peak is unchanged: 394 -> 406 MB there). Threads' arenas fall back to the main
    // one for blocks beyond their heaps.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: allocator tuning before any thread is started; both are valid mallopt parameters.
    unsafe {
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
    dpaudit::cli::main()
}
