//! The terminal progress bar: an [`Observer`] for the audit engine that draws an `indicatif` bar
//! on stderr, only when stderr is a terminal and the `CI` variable is unset (quiet in CI and in
//! pipes). The engine itself knows nothing of terminals.

use crate::compare::{Observer, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Whether a bar should be drawn: asked for, stderr is a terminal, `CI` unset.
pub(crate) fn wanted(asked: bool) -> bool {
    asked && std::env::var_os("CI").is_none() && std::io::stderr().is_terminal()
}

struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
        self.0.set_position(0);
    }
    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// A bar labelled `what` if [`wanted`]`(asked)`, else no observer.
pub(crate) fn bar(what: &str, asked: bool) -> Observer {
    if !wanted(asked) {
        return Observer::none();
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    let template = format!(
        "{{spinner}} {what} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} \
         ({{per_sec}}, eta {{eta}})"
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    Observer::new(Bar(bar))
}
