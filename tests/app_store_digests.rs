//! The SQLite store's replay digests live in a file beside the database
//! (`gatehouse.db-digests`), derived from the deliveries: trusted as a
//! process left it when it closed the store, made again from the
//! deliveries when it was left open, is damaged, or is ahead of a database
//! restored from a backup. A delivery row deleted behind the store's back
//! tells the two apart: a trusted file still knows its body, one made
//! again does not.

mod common;

use std::path::Path;

use common::Db;
use gatehouse::store::{Accepted, Signed, Store};

const BODIES: [&[u8]; 4] = [
    br#"{"action":"opened","number":1}"#,
    br#"{"action":"opened","number":2}"#,
    br#"{"action":"opened","number":3}"#,
    br#"{"action":"opened","number":4}"#,
];

async fn accept(store: &Store, id: &str, body: &[u8]) -> Accepted {
    let mac = common::mac_of(body);
    store.accept_signed(id, "pull_request", Signed { body, mac: &mac }, &[]).await.unwrap()
}

fn database(dir: &tempfile::TempDir) -> std::path::PathBuf {
    dir.path().join("gatehouse.db")
}

/// Deletes a delivery's row, leaving the replay-digest file as it is.
fn forget(dir: &tempfile::TempDir, id: &str) {
    let connection = rusqlite::Connection::open(database(dir)).unwrap();
    assert_eq!(connection.execute("DELETE FROM gh_deliveries WHERE id = ?1", [id]).unwrap(), 1);
}

#[tokio::test]
async fn a_closed_file_is_trusted_and_one_left_open_is_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = Db::sqlite(&dir).store().await;
    for (n, body) in BODIES[..3].iter().enumerate() {
        assert_eq!(accept(&store, &format!("d-{n}"), body).await, Accepted::New { jobs: 0 });
    }
    store.close().await.unwrap();
    assert!(store.accept("d-late", "ping", &[]).await.is_err(), "a closed store refuses deliveries");
    drop(store);

    forget(&dir, "d-0");
    let store = Db::sqlite(&dir).store().await;
    assert_eq!(accept(&store, "d-0-again", BODIES[0]).await, Accepted::Duplicate, "the closed file was trusted");
    assert_eq!(accept(&store, "d-3", BODIES[3]).await, Accepted::New { jobs: 0 });
    // Stopped without closing, as a crash stops it.
    drop(store);

    forget(&dir, "d-1");
    let store = Db::sqlite(&dir).store().await;
    assert_eq!(
        accept(&store, "d-1-again", BODIES[1]).await,
        Accepted::New { jobs: 0 },
        "the file left open was made again from the deliveries"
    );
    assert_eq!(accept(&store, "d-2-again", BODIES[2]).await, Accepted::Duplicate);
    assert_eq!(accept(&store, "d-3-again", BODIES[3]).await, Accepted::Duplicate);
}

#[tokio::test]
async fn a_database_restored_from_a_backup_takes_its_lost_deliveries_as_new() {
    let dir = tempfile::tempdir().unwrap();
    let backup = dir.path().join("backup.db");
    let store = Db::sqlite(&dir).store().await;
    assert_eq!(accept(&store, "d-0", BODIES[0]).await, Accepted::New { jobs: 0 });
    store.close().await.unwrap();
    drop(store);
    let connection = rusqlite::Connection::open(database(&dir)).unwrap();
    connection.execute("VACUUM INTO ?1", [backup.to_str().unwrap()]).unwrap();
    drop(connection);

    let store = Db::sqlite(&dir).store().await;
    assert_eq!(accept(&store, "d-1", BODIES[1]).await, Accepted::New { jobs: 0 });
    store.close().await.unwrap();
    drop(store);
    restore(&database(&dir), &backup);

    // The restored database lost d-1; GitHub delivers it again.
    let store = Db::sqlite(&dir).store().await;
    assert_eq!(accept(&store, "d-1", BODIES[1]).await, Accepted::New { jobs: 0 });
    assert_eq!(accept(&store, "d-0-again", BODIES[0]).await, Accepted::Duplicate);
}

fn restore(database: &Path, backup: &Path) {
    for suffix in ["-wal", "-shm"] {
        let mut name = database.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(name);
    }
    std::fs::copy(backup, database).unwrap();
}

#[tokio::test]
async fn a_damaged_file_is_made_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = Db::sqlite(&dir).store().await;
    assert_eq!(accept(&store, "d-0", BODIES[0]).await, Accepted::New { jobs: 0 });
    store.close().await.unwrap();
    drop(store);
    std::fs::write(dir.path().join("gatehouse.db-digests"), vec![0x5a; 8192]).unwrap();

    let store = Db::sqlite(&dir).store().await;
    assert_eq!(accept(&store, "d-0-again", BODIES[0]).await, Accepted::Duplicate);
    assert_eq!(accept(&store, "d-1", BODIES[1]).await, Accepted::New { jobs: 0 });
}

#[tokio::test]
async fn a_second_store_on_the_database_reads_but_refuses_deliveries() {
    let dir = tempfile::tempdir().unwrap();
    let first = Db::sqlite(&dir).store().await;
    assert_eq!(accept(&first, "d-0", BODIES[0]).await, Accepted::New { jobs: 0 });
    let second = Db::sqlite(&dir).store().await;
    let mac = common::mac_of(BODIES[1]);
    let signed = Signed { body: BODIES[1], mac: &mac };
    let refused = second.accept_signed("d-1", "pull_request", signed, &[]).await.unwrap_err().to_string();
    assert!(refused.contains("held by another store"), "{refused}");
    assert_eq!(second.deliveries().await.unwrap(), 1);
    assert_eq!(accept(&first, "d-1", BODIES[1]).await, Accepted::New { jobs: 0 });
    assert_eq!(accept(&first, "d-0-again", BODIES[0]).await, Accepted::Duplicate);
}
