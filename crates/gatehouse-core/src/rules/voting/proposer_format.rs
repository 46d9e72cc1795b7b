use super::{VotingView, anchor, at};
use crate::docs::voting::persona_pin_problem;
use crate::model::Sink;

declare_rule! {
    id: "voting/proposer-format",
    view: VotingView,
    severity: Error,
    summary: "`proposer` is `<persona>/<model_pin>`",
    why: "ADR-140: `proposer` is \"<persona>/<model_pin> E.g. lin/opus-4.7, jon-laptop/operator-seed. The \
validator checks the slash-shape; the power layer (Phase 4) reads this to apply weights.\" Both parts are \
non-empty, with no whitespace or control characters; there is exactly one slash. Letters of any script \
are letters (`zoë/opus-4.7`), and a pin is written as its vendor publishes it (`claude-3-5-sonnet@20240620`, \
`llama3.1:70b`). The message names the character that breaks the shape and its column.",
    bad: "dark-factory/guidelines/smoke-spec-path@v1.md",
    good: "dark-factory/guidelines/smoke-spec-path@v1.md",
}

fn check(view: &VotingView, sink: &mut Sink) {
    for (doc, block, argument) in view.arguments() {
        let Some(node) = argument.field("proposer") else { continue };
        let Some(proposer) = node.as_str() else { continue };
        if let Some(problem) = persona_pin_problem(proposer) {
            sink.emit(doc.path, at(doc.text, node), anchor(block, &argument, "proposer"), format!("proposer `{proposer}` of argument `{}` {problem}: it is `<persona>/<model_pin>`", argument.name()))
                .help("write the persona and the model pin joined by one `/`, e.g. `lin/opus-4.7` or `jon-laptop/operator-seed`");
        }
    }
}
