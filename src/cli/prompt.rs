//! Questions asked on a terminal: each answer is checked as it is typed and
//! asked again when it does not fit, so one slip never discards the answers
//! before it. Questions and complaints go to stderr; stdout carries only the
//! command's result.

use std::io::{BufRead, Write};

use anyhow::{Result, bail};

/// Asks questions on `input`, writing them to `output`.
pub(super) struct Prompter<R, W> {
    input: R,
    output: W,
}

impl Prompter<std::io::StdinLock<'static>, std::io::Stderr> {
    /// Questions on the terminal: read from stdin, asked on stderr.
    pub(super) fn terminal() -> Self {
        Prompter::new(std::io::stdin().lock(), std::io::stderr())
    }
}

impl<R: BufRead, W: Write> Prompter<R, W> {
    pub(super) fn new(input: R, output: W) -> Self {
        Prompter { input, output }
    }

    /// Prints a line of guidance before a question.
    pub(super) fn say(&mut self, text: &str) -> Result<()> {
        writeln!(self.output, "{text}")?;
        Ok(())
    }

    /// Asks `question` until `check` accepts the (trimmed) answer. `hint`
    /// is shown in parentheses: an example ("e.g. SWARM-AR") or, when an
    /// empty answer means something, what it means ("Enter for 2").
    pub(super) fn ask<T>(
        &mut self,
        question: &str,
        hint: &str,
        check: impl Fn(&str) -> std::result::Result<T, String>,
    ) -> Result<T> {
        loop {
            write!(self.output, "{question} ({hint}): ")?;
            self.output.flush()?;
            let mut line = String::new();
            if self.input.read_line(&mut line)? == 0 {
                writeln!(self.output)?;
                bail!("the input ended before `{question}` was answered");
            }
            match check(line.trim()) {
                Ok(value) => return Ok(value),
                Err(why) => writeln!(self.output, "  {why}; try again")?,
            }
        }
    }
}

/// Words of an answer separated by spaces or commas.
pub(super) fn words(answer: &str) -> Vec<String> {
    answer.split([' ', ',']).filter(|s| !s.is_empty()).map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_answer_is_asked_again_and_the_right_one_kept() {
        let mut out = Vec::new();
        let mut p = Prompter::new(&b"many\n\n 40 \n"[..], &mut out);
        let number = |a: &str| a.parse::<u32>().map_err(|_| format!("`{a}` is not a number"));
        assert_eq!(p.ask("lines estimate", "e.g. 40", number).unwrap(), 40);
        let shown = String::from_utf8(out).unwrap();
        assert_eq!(
            shown,
            "lines estimate (e.g. 40):   `many` is not a number; try again\n\
             lines estimate (e.g. 40):   `` is not a number; try again\n\
             lines estimate (e.g. 40): "
        );
    }

    #[test]
    fn the_end_of_input_is_an_error_naming_the_question() {
        let mut p = Prompter::new(&b""[..], Vec::new());
        let err = p.ask("slug", "e.g. pg-backup", |a| Ok::<_, String>(a.to_string())).unwrap_err();
        assert!(err.to_string().contains("`slug`"), "{err}");
        assert_eq!(words("a/b, c/d  e/f"), ["a/b", "c/d", "e/f"]);
    }
}
