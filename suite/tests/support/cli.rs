//! The CLI under test, run with a temporary directory of its own: what it writes there (the
//! replayed requests a FAIL verdict keeps when no `--artifacts` is given, among others) goes when
//! the command does, so a test run leaves nothing in the machine's temporary directory.

use std::ops::{Deref, DerefMut};
use std::process::Command;

/// `webhook-conformance` as a [`Command`], with `TMPDIR` set to a directory removed on drop.
/// Hold it while a process spawned from it runs.
pub struct Cli {
    command: Command,
    /// Removed when the command is dropped.
    _tmp: tempfile::TempDir,
}

impl Deref for Cli {
    type Target = Command;
    fn deref(&self) -> &Command {
        &self.command
    }
}

impl DerefMut for Cli {
    fn deref_mut(&mut self) -> &mut Command {
        &mut self.command
    }
}

/// The CLI with a temporary directory of its own.
pub fn bin() -> Cli {
    let tmp = tempfile::Builder::new().prefix("webhook-conformance-test-").tempdir().expect("a temporary directory");
    let mut command = Command::new(env!("CARGO_BIN_EXE_webhook-conformance"));
    command.env("TMPDIR", tmp.path());
    Cli { command, _tmp: tmp }
}
