//! Helpers shared by the tests that run the `dpaudit` binary (tests/cli.rs, cli_json.rs,
//! audit_command.rs, shard_tamper.rs, train_audit_shard.rs, limits.rs), and in `accounting` the
//! reference rows of the accounting tests: each test file uses the ones it needs.

#![allow(dead_code)]

pub mod accounting;

use std::path::PathBuf;
use std::process::{Command, Output};

/// The binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dpaudit"))
}

/// A fresh temporary directory `dpaudit-{kind}-{name}-{pid}` for one test (emptied first).
pub fn fresh_dir(kind: &str, name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dpaudit-{kind}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Bytes of a process's output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `cmd` to completion.
pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the binary runs")
}
