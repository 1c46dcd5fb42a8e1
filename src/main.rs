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
    dpaudit::cli::main()
}
