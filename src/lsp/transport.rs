//! The base protocol on stdio: `Content-Length` framed JSON-RPC messages.
//!
//! Written here rather than taken from `lsp_server::Connection::stdio`,
//! whose reader stops at the first malformed message: a client's bad
//! message is answered with a JSON-RPC error and the server keeps reading.

use std::io::{BufRead, Read, Write};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use lsp_server::Message;

/// What the reader hands the server: a message, or why one could not be read.
pub(crate) enum Incoming {
    Message(Message),
    /// A frame that was read whole but is not a JSON-RPC message: answered
    /// with this code and text, the request id (when one could be read) kept.
    Malformed {
        id: serde_json::Value,
        code: i32,
        message: String,
    },
}

/// The writing half, shared by the server's threads.
#[derive(Clone)]
pub(crate) struct Writer {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Writer {
    pub(crate) fn new(out: Box<dyn Write + Send>) -> Writer {
        Writer { out: Arc::new(Mutex::new(out)) }
    }

    /// Writes one message; a closed output ends nothing here (the reader
    /// sees the client go).
    pub(crate) fn send(&self, message: &Message) {
        let mut value = serde_json::to_value(message).expect("plain data");
        value["jsonrpc"] = "2.0".into();
        self.send_value(&value);
    }

    pub(crate) fn send_value(&self, value: &serde_json::Value) {
        let body = serde_json::to_vec(value).expect("plain data");
        let mut out = self.out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let _ = write!(out, "Content-Length: {}\r\n\r\n", body.len());
        let _ = out.write_all(&body);
        let _ = out.flush();
    }

    /// Answers a malformed message with a JSON-RPC error.
    pub(crate) fn send_error(&self, id: serde_json::Value, code: i32, message: &str) {
        self.send_value(&serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": code, "message": message },
        }));
    }
}

/// The JSON-RPC code for a body that is not JSON.
const PARSE_ERROR: i32 = -32700;
/// The JSON-RPC code for JSON that is not a request, response or notification.
const INVALID_REQUEST: i32 = -32600;

/// Reads frames from `input` on a thread of its own until it closes or
/// its framing breaks beyond repair (no `Content-Length`).
pub(crate) fn spawn_reader(input: impl Read + Send + 'static) -> Receiver<Incoming> {
    let (tx, rx) = channel();
    std::thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || read_loop(std::io::BufReader::new(input), &tx))
        .expect("a thread can be started");
    rx
}

fn read_loop(mut input: impl BufRead, tx: &Sender<Incoming>) {
    while let Some(body) = read_frame(&mut input) {
        let incoming = match serde_json::from_slice::<serde_json::Value>(&body) {
            Err(e) => Incoming::Malformed {
                id: serde_json::Value::Null,
                code: PARSE_ERROR,
                message: format!("not JSON: {e}"),
            },
            Ok(value) => {
                let id = value.get("id").cloned().unwrap_or_default();
                match serde_json::from_value::<Message>(value) {
                    Ok(message) => Incoming::Message(message),
                    Err(e) => Incoming::Malformed {
                        id,
                        code: INVALID_REQUEST,
                        message: format!("not a JSON-RPC request, response or notification: {e}"),
                    },
                }
            }
        };
        if tx.send(incoming).is_err() {
            return;
        }
    }
}

/// One frame's body; `None` at the end of input or when the header has no
/// readable `Content-Length` (the stream cannot be resynchronised).
fn read_frame(input: &mut impl BufRead) -> Option<Vec<u8>> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if input.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            if length.is_some() {
                break;
            }
            // Blank lines between frames are tolerated.
            continue;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(value.trim().parse::<usize>().ok()?);
        }
    }
    let mut body = vec![0; length?];
    input.read_exact(&mut body).ok()?;
    Some(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(raw: &str) -> Vec<Incoming> {
        let (tx, rx) = channel();
        read_loop(std::io::Cursor::new(raw.as_bytes().to_vec()), &tx);
        drop(tx);
        rx.into_iter().collect()
    }

    #[test]
    fn a_malformed_frame_is_answered_and_the_next_is_read() {
        let good = r#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#;
        let raw = format!(
            "Content-Length: 5\r\n\r\n{{oops\r\nContent-Length: 11\r\n\r\n{{\"id\":true}}Content-Length: {}\r\n\r\n{good}",
            good.len()
        );
        let read = frames(&raw);
        assert_eq!(read.len(), 3);
        assert!(matches!(&read[0], Incoming::Malformed { code: PARSE_ERROR, .. }));
        assert!(
            matches!(&read[1], Incoming::Malformed { code: INVALID_REQUEST, id, .. } if *id == serde_json::json!(true))
        );
        assert!(matches!(&read[2], Incoming::Message(Message::Request(r)) if r.method == "shutdown"));
    }
}
