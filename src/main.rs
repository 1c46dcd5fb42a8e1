//! The `dpaudit` binary: a thin shell over the library's command line, [`dpaudit::cli::main`].

fn main() -> std::process::ExitCode {
    dpaudit::cli::main()
}
