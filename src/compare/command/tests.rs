//! Command-audit specs: what is accepted, and what is refused with the field named.

use super::{is_command_spec, CommandSpec, OutputFormat, Path, PathBuf, Result};

const GOOD: &str = r#"
name = "x"
[mechanism]
command = ["python3", "s.py", "{seed}"]
output = "text"
dim = 1
timeout_seconds = 5
jobs = 1
[claim]
eps = "2"
delta = "0.021"
[audit]
samples_per_side = 1000
chunk = 300
seed = 7
statistic = "exact-bits"
confidence = 0.9
pilot_fraction = "0.25"
"#;

fn parse(text: &str) -> Result<CommandSpec> {
    CommandSpec::from_toml(text, Path::new("dir/spec.toml"))
}

#[test]
fn a_full_spec_is_read() {
    let s = parse(GOOD).unwrap();
    assert_eq!(s.name, "x");
    assert_eq!(s.command.argv, ["python3", "s.py", "{seed}"]);
    assert_eq!(s.command.dir, PathBuf::from("dir"));
    assert_eq!(s.command.output, OutputFormat::Text);
    assert_eq!(
        (s.command.dim, s.command.timeout, s.command.jobs),
        (Some(1), Some(5.0), 1)
    );
    assert_eq!(
        (s.plan.samples_per_side, s.plan.chunk, s.plan.seed),
        (1000, 300, 7)
    );
    assert_eq!(s.plan.chunks(), 4);
    assert_eq!((s.options.eps, s.options.delta), (2.0, 0.021));
    assert_eq!(
        (s.options.confidence, s.options.pilot_fraction),
        (0.9, 0.25)
    );
    assert_eq!(s.options.seed, 7);
    assert!(is_command_spec(GOOD));
}

#[test]
fn family_specs_are_not_command_specs() {
    let fam = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/audits/gaussian.toml"))
        .unwrap();
    assert!(!is_command_spec(&fam));
    assert!(!is_command_spec("not toml ["));
}

#[test]
fn bad_fields_are_named() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "command = [\"python3\", \"s.py\", \"{seed}\"]",
            "command = []",
            "mechanism.command",
        ),
        ("output = \"text\"", "output = \"xml\"", "mechanism.output"),
        ("dim = 1", "dim = 0", "mechanism.dim"),
        (
            "timeout_seconds = 5",
            "timeout_seconds = -1",
            "mechanism.timeout_seconds",
        ),
        ("jobs = 1", "jobs = 0", "mechanism.jobs"),
        ("eps = \"2\"", "eps = \"two\"", "claim.eps"),
        ("delta = \"0.021\"", "delta = \"1.5\"", "claim/audit"),
        (
            "samples_per_side = 1000",
            "samples_per_side = 1",
            "audit.samples_per_side",
        ),
        ("chunk = 300", "chunk = 0", "audit.chunk"),
        ("seed = 7", "seed = -1", "audit.seed"),
        (
            "statistic = \"exact-bits\"",
            "statistic = \"magic\"",
            "audit.statistic",
        ),
        ("confidence = 0.9", "confidence = 2", "claim/audit"),
        ("name = \"x\"", "name = \"../x\"", "name"),
    ];
    for (from, to, field) in cases {
        let text = GOOD.replace(from, to);
        assert_ne!(text, GOOD, "{from}");
        let e = parse(&text).unwrap_err().to_string();
        assert!(e.contains(field), "{to}: {e}");
        assert!(e.contains("dir/spec.toml"), "{to}: {e}");
    }
    let e = parse(&GOOD.replace("jobs = 1", "jobs = 1\nfamily = \"gaussian\""))
        .unwrap_err()
        .to_string();
    assert!(e.contains("family"), "{e}");
}

#[test]
fn a_bare_file_name_runs_in_the_current_directory() {
    let s = CommandSpec::from_toml(GOOD, Path::new("spec.toml")).unwrap();
    assert_eq!(s.command.dir, PathBuf::from("."));
}
