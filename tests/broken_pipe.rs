//! `dpaudit … | head`: a reader that leaves early must not turn the next print into a panic
//! (exit status 101, "failed printing to stdout"); the process ends by SIGPIPE, as Unix filters do.

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_process_quietly() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let mut csv = String::from("id,quantity,family,params\n");
    for i in 0..20_000 {
        csv.push_str(&format!(
            "r{i},renyi,gaussian,mu1=0;mu2=1;sigma=5;alpha=10\n"
        ));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_dpaudit"))
        .args(["eval", "--digits", "6", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(csv.as_bytes());
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("id,quantity"), "{first}");
    // stdout is dropped here: the pipe is closed while dpaudit still has rows to print.
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
    assert!(
        out.status.signal() == Some(13) || out.status.success(),
        "{:?} {stderr}",
        out.status
    );
}
