//! The server's state and its handling of each message.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Instant;

use anyhow::Result;
use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionProviderCapability, CompletionOptions,
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, HoverProviderCapability, InitializeParams, InitializeResult, MessageType, OneOf,
    PublishDiagnosticsParams, ServerCapabilities, ServerInfo, ShowMessageParams, TextDocumentSyncCapability,
    TextDocumentSyncKind, Uri,
};
use serde::de::DeserializeOwned;

use super::convert::{self, file_uri, uri_path};
use super::transport::{Incoming, Writer};
use super::workspace::Workspace;
use crate::config::CONFIG_PATH;
use crate::model::{Files, Report};

pub(super) struct Server {
    out: Writer,
    workspace: Option<Workspace>,
    /// The URI the client named each open document by, by repository path.
    uris: BTreeMap<String, Uri>,
    /// When the open documents are next checked; `None` when nothing changed.
    due: Option<Instant>,
    /// The last check: its report and the head it read.
    checked: Option<(Report, Files)>,
    shutdown: bool,
}

/// Why a request failed: the code and message of its error answer.
pub(super) struct Failure(pub ErrorCode, pub String);

impl Failure {
    pub(super) fn invalid(message: impl Into<String>) -> Failure {
        Failure(ErrorCode::InvalidParams, message.into())
    }
}

impl Server {
    pub(super) fn new(out: Writer) -> Server {
        Server { out, workspace: None, uris: BTreeMap::new(), due: None, checked: None, shutdown: false }
    }

    pub(super) fn run(mut self, incoming: Receiver<Incoming>) -> Result<bool> {
        loop {
            let next = match self.due {
                Some(due) => match incoming.recv_timeout(due.saturating_duration_since(Instant::now())) {
                    Ok(next) => Some(next),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return Ok(self.shutdown),
                },
                None => match incoming.recv() {
                    Ok(next) => Some(next),
                    Err(_) => return Ok(self.shutdown),
                },
            };
            match next {
                None => self.check(),
                Some(Incoming::Malformed { id, code, message }) => self.out.send_error(id, code, &message),
                Some(Incoming::Message(Message::Request(request))) => self.request(request),
                Some(Incoming::Message(Message::Notification(n))) if n.method == note::Exit::METHOD => {
                    return Ok(self.shutdown);
                }
                Some(Incoming::Message(Message::Notification(n))) => self.notification(n),
                Some(Incoming::Message(Message::Response(_))) => {}
            }
        }
    }

    fn request(&mut self, request: Request) {
        let id = request.id.clone();
        let answer = match (request.method.as_str(), &self.workspace) {
            (req::Initialize::METHOD, _) => self.initialize(request.params),
            (_, None) => Err(Failure(ErrorCode::ServerNotInitialized, "the server is not initialized".into())),
            (_, Some(_)) if self.shutdown => {
                Err(Failure(ErrorCode::InvalidRequest, "the server is shutting down".into()))
            }
            (req::Shutdown::METHOD, _) => {
                self.shutdown = true;
                Ok(serde_json::Value::Null)
            }
            (req::HoverRequest::METHOD, _) => params(request.params).and_then(|p| self.hover(p)),
            (req::GotoDefinition::METHOD, _) => params(request.params).and_then(|p| self.definition(p)),
            (req::CodeActionRequest::METHOD, _) => params(request.params).and_then(|p| self.code_actions(p)),
            (req::Completion::METHOD, _) => params(request.params).and_then(|p| self.completion(p)),
            (method, _) => Err(Failure(ErrorCode::MethodNotFound, format!("gatehouse lsp does not serve `{method}`"))),
        };
        let response = match answer {
            Ok(result) => Response::new_ok(id, result),
            Err(Failure(code, message)) => Response::new_err(id, code as i32, message),
        };
        self.out.send(&Message::Response(response));
    }

    fn initialize(&mut self, raw: serde_json::Value) -> Result<serde_json::Value, Failure> {
        if self.workspace.is_some() {
            return Err(Failure(ErrorCode::InvalidRequest, "`initialize` was already answered".into()));
        }
        let init: InitializeParams = params(raw)?;
        #[allow(deprecated)] // rootUri and rootPath: older clients send no workspace folders.
        let folder = init
            .workspace_folders
            .as_ref()
            .and_then(|folders| folders.first())
            .map(|f| &f.uri)
            .or(init.root_uri.as_ref())
            .and_then(uri_path)
            .or_else(|| init.root_path.as_ref().map(PathBuf::from));
        let dir = match folder {
            Some(dir) => dir,
            None => std::env::current_dir().map_err(|e| Failure(ErrorCode::InternalError, e.to_string()))?,
        };
        let workspace = Workspace::load(&dir).map_err(|e| {
            Failure(ErrorCode::InternalError, format!("cannot read the workspace {}: {e:#}", dir.display()))
        })?;
        for note in &workspace.notes {
            self.notify::<note::LogMessage>(lsp_types::LogMessageParams {
                typ: MessageType::INFO,
                message: note.clone(),
            });
        }
        self.workspace = Some(workspace);
        let capabilities = ServerCapabilities {
            text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            definition_provider: Some(OneOf::Left(true)),
            code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
            completion_provider: Some(CompletionOptions {
                trigger_characters: Some(vec!["-".into(), "/".into(), ":".into(), " ".into()]),
                ..CompletionOptions::default()
            }),
            ..ServerCapabilities::default()
        };
        let result = InitializeResult {
            capabilities,
            server_info: Some(ServerInfo { name: "gatehouse".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
        };
        Ok(serde_json::to_value(result).expect("plain data"))
    }

    fn notification(&mut self, n: Notification) {
        if self.workspace.is_none() || self.shutdown {
            return;
        }
        let handled = match n.method.as_str() {
            note::DidOpenTextDocument::METHOD => params::<DidOpenTextDocumentParams>(n.params).map(|p| {
                self.opened(p.text_document.uri, &p.text_document.text, p.text_document.version);
            }),
            note::DidChangeTextDocument::METHOD => params::<DidChangeTextDocumentParams>(n.params).map(|p| {
                // Full sync: the last change holds the whole text.
                if let Some(change) = p.content_changes.last() {
                    self.opened(p.text_document.uri, &change.text, p.text_document.version);
                }
            }),
            note::DidCloseTextDocument::METHOD => params::<DidCloseTextDocumentParams>(n.params).map(|p| {
                self.closed(&p.text_document.uri);
            }),
            note::DidSaveTextDocument::METHOD => params::<DidSaveTextDocumentParams>(n.params).map(|p| {
                self.files_changed([p.text_document.uri]);
            }),
            note::DidChangeWatchedFiles::METHOD => params::<DidChangeWatchedFilesParams>(n.params).map(|p| {
                self.files_changed(p.changes.into_iter().map(|c| c.uri));
            }),
            _ => Ok(()),
        };
        if let Err(Failure(_, message)) = handled {
            self.notify::<note::ShowMessage>(ShowMessageParams {
                typ: MessageType::WARNING,
                message: format!("gatehouse: `{}` ignored: {message}", n.method),
            });
        }
    }

    fn workspace(&mut self) -> &mut Workspace {
        self.workspace.as_mut().expect("notifications and requests are served once initialized")
    }

    /// The repository path of a document URI in the workspace.
    fn path_of(&mut self, uri: &Uri) -> Option<String> {
        let file = uri_path(uri)?;
        self.workspace().relative(&file)
    }

    fn opened(&mut self, uri: Uri, text: &str, version: i32) {
        let Some(path) = self.path_of(&uri) else { return };
        self.workspace().open(path.clone(), text, version);
        self.uris.insert(path, uri);
        self.due = Some(Instant::now() + super::DEBOUNCE);
    }

    fn closed(&mut self, uri: &Uri) {
        let Some(path) = self.path_of(uri) else { return };
        let workspace = self.workspace();
        workspace.close(&path);
        workspace.refresh(&path);
        if let Some(uri) = self.uris.remove(&path) {
            self.publish(uri, Vec::new(), None);
        }
        self.due = Some(Instant::now() + super::DEBOUNCE);
    }

    /// Files changed outside the buffers (a save, a `git pull`, a new ADR):
    /// read again, and every open document re-checked against them.
    fn files_changed(&mut self, uris: impl IntoIterator<Item = Uri>) {
        let paths: Vec<String> = uris.into_iter().filter_map(|uri| self.path_of(&uri)).collect();
        let workspace = self.workspace();
        if paths.iter().any(|p| p == CONFIG_PATH) {
            if let Err(e) = workspace.reload() {
                let message = format!("gatehouse: cannot read the workspace again: {e:#}");
                self.notify::<note::ShowMessage>(ShowMessageParams { typ: MessageType::ERROR, message });
            }
        } else {
            for path in &paths {
                workspace.refresh(path);
            }
        }
        self.due = Some(Instant::now() + super::DEBOUNCE);
    }

    /// Checks the open documents now and publishes each one's diagnostics.
    fn check(&mut self) {
        self.due = None;
        let workspace = self.workspace.as_mut().expect("checked once initialized");
        let (report, head) = workspace.evaluate();
        // What the open documents hold that the change did not earn: shown
        // too, as information, so a document unchanged from the base still
        // shows what it fails.
        let whole = workspace.evaluate_whole();
        let earned_by_path = by_path(&report);
        let held_by_path = whole.as_ref().map(by_path).unwrap_or_default();
        let published: Vec<(Uri, Vec<lsp_types::Diagnostic>, Option<i32>)> = workspace
            .open_paths()
            .filter_map(|(path, open)| {
                let uri = self.uris.get(path)?.clone();
                let text = head.get(path).and_then(|c| c.text()).unwrap_or("");
                let earned = earned_by_path.get(path.as_str()).map(Vec::as_slice).unwrap_or_default();
                let held = held_by_path.get(path.as_str()).map(Vec::as_slice).unwrap_or_default();
                let on_base = held.iter().filter(|f| !earned.iter().any(|e| e.fingerprint == f.fingerprint));
                let diagnostics = earned
                    .iter()
                    .map(|f| convert::diagnostic(text, f))
                    .chain(on_base.map(|f| convert::on_base(text, f)))
                    .collect();
                Some((uri, diagnostics, Some(open.version)))
            })
            .collect();
        for (uri, diagnostics, version) in published {
            self.publish(uri, diagnostics, version);
        }
        self.checked = Some((report, head));
    }

    /// The last check's report and head, checking first when a change is pending.
    pub(super) fn checked(&mut self) -> (&Report, &Files, &Workspace) {
        if self.due.is_some() || self.checked.is_none() {
            self.check();
        }
        let (report, head) = self.checked.as_ref().expect("just checked");
        (report, head, self.workspace.as_ref().expect("initialized"))
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        self.notify::<note::PublishDiagnostics>(PublishDiagnosticsParams { uri, diagnostics, version });
    }

    fn notify<N: note::Notification>(&self, params: N::Params) {
        self.out.send(&Message::Notification(Notification::new(N::METHOD.to_string(), params)));
    }

    /// The open or on-disk document a request names: its repository path.
    pub(super) fn document(&mut self, uri: &Uri) -> Result<String, Failure> {
        let path = self
            .path_of(uri)
            .ok_or_else(|| Failure::invalid(format!("{} is not a file in the workspace", uri.as_str())))?;
        if self.workspace().text(&path).is_none() && !self.workspace().root().join(&path).is_file() {
            return Err(Failure::invalid(format!("{path} is neither open nor on disk")));
        }
        Ok(path)
    }

    pub(super) fn uri_of(&self, path: &str) -> Uri {
        match self.uris.get(path) {
            Some(uri) => uri.clone(),
            None => file_uri(&self.workspace.as_ref().expect("initialized").root().join(path)),
        }
    }

    fn code_actions(&mut self, p: CodeActionParams) -> Result<serde_json::Value, Failure> {
        let path = self.document(&p.text_document.uri)?;
        let uris = self.uris.clone();
        let (report, head, workspace) = self.checked();
        let root = workspace.root().to_path_buf();
        let uri_of = |path: &str| uris.get(path).cloned().unwrap_or_else(|| file_uri(&root.join(path)));
        let text = head.get(&path).and_then(|c| c.text()).unwrap_or("");
        let mut actions = Vec::new();
        for finding in report.findings().filter(|f| f.path == path) {
            let Some(fix) = &finding.fix else { continue };
            let range = convert::span_range(text, finding.span);
            // Offered on every line the finding spans: a client asks with the cursor's position.
            if range.end.line < p.range.start.line || p.range.end.line < range.start.line {
                continue;
            }
            let text_of = |path: &str| head.get(path).and_then(|c| c.text()).map(std::sync::Arc::from);
            let Some(edit) = convert::workspace_edit(fix, text_of, uri_of) else { continue };
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("{} ({})", fix.message, finding.rule),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![convert::diagnostic(text, finding)]),
                edit: Some(edit),
                is_preferred: Some(true),
                ..CodeAction::default()
            }));
        }
        Ok(serde_json::to_value(actions).expect("plain data"))
    }
}

/// A request's or notification's parameters, or an invalid-params failure
/// that names what was wrong.
pub(super) fn params<P: DeserializeOwned>(raw: serde_json::Value) -> Result<P, Failure> {
    serde_json::from_value(raw).map_err(|e| Failure::invalid(format!("invalid parameters: {e}")))
}

/// A report's findings by path.
fn by_path(report: &crate::model::Report) -> BTreeMap<&str, Vec<&crate::model::Finding>> {
    let mut by_path: BTreeMap<&str, Vec<&crate::model::Finding>> = BTreeMap::new();
    for finding in report.findings() {
        by_path.entry(finding.path.as_str()).or_default().push(finding);
    }
    by_path
}
