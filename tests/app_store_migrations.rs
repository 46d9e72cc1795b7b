//! Migrations: a database made by gatehouse 0.1 (fixtures/store) is adopted
//! and keeps its data, a fresh database gets the same schema, a database at
//! an unknown step or with a changed migration is refused, and replicas
//! starting together on PostgreSQL migrate once.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use gatehouse::github::HeadSha;
use gatehouse::store::{Accepted, NewJob, PrNumber, Scope, Signed, Store, Target};
use sqlx::FromRow;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::SqlitePool;

fn fixture(name: &str) -> PathBuf {
    common::manifest_dir().join("fixtures/store").join(name)
}

/// A copy of the 0.1 SQLite fixture in `dir` (the committed file stays as it is).
fn release_0_1_sqlite(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("gatehouse.db");
    std::fs::copy(fixture("release-0.1-sqlite.db"), &path).unwrap();
    path
}

fn sqlite_url(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

async fn sqlite_pool(path: &Path) -> SqlitePool {
    SqlitePool::connect(&sqlite_url(path)).await.unwrap()
}

/// One column of a table, as the engine describes it.
#[derive(Debug, PartialEq, Eq, FromRow)]
struct Column {
    table_name: String,
    column_name: String,
    data_type: String,
    not_null: bool,
    default_value: Option<String>,
    primary_key: i64,
}

/// One index, by the columns it covers.
#[derive(Debug, PartialEq, Eq, FromRow)]
struct Index {
    table_name: String,
    index_name: String,
    is_unique: bool,
    columns: String,
}

/// The gatehouse tables' columns and indexes (without the migrations' own records).
async fn sqlite_schema(path: &Path) -> (Vec<Column>, Vec<Index>) {
    let pool = sqlite_pool(path).await;
    let columns = sqlx::query_as(
        "SELECT m.name AS table_name, p.name AS column_name, p.type AS data_type, p.\"notnull\" AS not_null, \
         p.dflt_value AS default_value, p.pk AS primary_key FROM sqlite_master m, pragma_table_info(m.name) p \
         WHERE m.type = 'table' AND m.name LIKE 'gh%' AND m.name <> 'gh_schema' ORDER BY m.name, p.cid",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let indexes = sqlx::query_as(
        "SELECT m.name AS table_name, l.name AS index_name, l.\"unique\" AS is_unique, \
         (SELECT group_concat(i.name, ',') FROM pragma_index_info(l.name) i) AS columns \
         FROM sqlite_master m, pragma_index_list(m.name) l \
         WHERE m.type = 'table' AND m.name LIKE 'gh%' AND m.name <> 'gh_schema' ORDER BY m.name, l.name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    (columns, indexes)
}

fn job(pr: u64) -> NewJob {
    NewJob {
        repo: "acme/docs".into(),
        installation: 7,
        target: Target::Pr { number: PrNumber(pr), head: Some(HeadSha("c3".into())) },
        scope: Scope::All,
        once_per_head: true,
        reason: "pull_request.synchronize".into(),
    }
}

#[tokio::test]
async fn release_0_1_sqlite_database_is_adopted_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = release_0_1_sqlite(&dir);
    let store = Store::connect(&sqlite_url(&path)).await.expect("the 0.1 database opens");

    assert_eq!(store.deliveries().await.unwrap(), 2);
    assert_eq!(store.jobs().await.unwrap(), vec![(1, "done".to_string(), 1), (2, "queued".to_string(), 0)]);
    let replay = store.accept("release-0.1-delivery-1", "pull_request", &[job(12)]).await.unwrap();
    assert_eq!(replay, Accepted::Duplicate, "a delivery accepted by 0.1 is a duplicate");
    let body: &[u8] = b"{\"action\":\"opened\"}";
    let mac = common::mac_of(body);
    let resent = store.accept_signed("resent", "pull_request", Signed { body, mac: &mac }, &[job(12)]).await.unwrap();
    assert_eq!(resent, Accepted::Duplicate, "a body accepted by 0.1 is recognised by its digest");
    // A body accepted since is known by its signature's digest, and a resend of it is one delivery.
    let body: &[u8] = b"{\"action\":\"closed\"}";
    let mac = common::mac_of(body);
    let signed = Signed { body, mac: &mac };
    assert_eq!(store.accept_signed("new", "pull_request", signed, &[]).await.unwrap(), Accepted::New { jobs: 0 });
    assert_eq!(store.accept_signed("new-again", "pull_request", signed, &[]).await.unwrap(), Accepted::Duplicate);
    let waiting = store.claim("w", Duration::from_secs(30)).await.unwrap().expect("0.1's queued job");
    assert_eq!(
        (waiting.target, waiting.scope),
        (Target::Pr { number: PrNumber(13), head: Some(HeadSha("b2".into())) }, Scope::ReviewGate)
    );

    let group = store.merge_group("acme/docs", "m1").await.unwrap().expect("0.1's merge group");
    assert_eq!((group.base_sha.as_str(), group.base_ref.as_str()), ("b0", "refs/heads/main"));
    let (head, recorded) = store.review_requests("acme/docs", 12).await.unwrap().expect("0.1's review requests");
    assert_eq!(head, "a1");
    let made = gatehouse::plan::requests::Made { requested: vec!["alice".into()], refused: vec!["bob".into()] };
    assert_eq!(recorded, gatehouse::plan::requests::Recorded::Made(made), "what 0.1 recorded was settled");
    let blobs = store.blobs(1000, &["o1"]).await.unwrap();
    assert_eq!(blobs.iter().map(|b| b.content.as_deref()).collect::<Vec<_>>(), [Some("# Brief\n")]);
    let paths = store.blob_paths("a1", &["briefs/one.md"]).await.unwrap();
    assert_eq!(paths.iter().map(|p| p.oid.as_deref()).collect::<Vec<_>>(), [Some("o1")]);
    let dependencies = store.dependencies("acme/docs", 12).await.unwrap().expect("0.1's dependency entry");
    assert_eq!(dependencies.documents[0].path, "gatehouse.yml");
    assert_eq!(store.redelivery_attempts().await.unwrap(), vec![("guid-1".to_string(), 1)]);
    let sweep = store.lease_sweep("replica-2", 3000, 4000).await.unwrap().expect("0.1's lease ran out");
    assert_eq!((sweep.pass_start, sweep.floor, sweep.cursor.as_deref()), (1000, 500, Some("page-2")));
    drop(store);

    let again = Store::connect(&sqlite_url(&path)).await.expect("an adopted database opens again");
    assert_eq!(again.deliveries().await.unwrap(), 3);
    let pool = sqlite_pool(&path).await;
    let digest: String =
        sqlx::query_scalar("SELECT digest FROM gh_deliveries WHERE id = 'new'").fetch_one(&pool).await.unwrap();
    assert!(digest.starts_with("sig:") && digest.len() == 68, "a digest of the signature: {digest}");
    let recorded: Vec<(i64, bool)> = sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert_eq!(
        recorded,
        (1..=10).map(|version| (version, true)).collect::<Vec<(i64, bool)>>(),
        "the baseline is recorded once, then the later migrations run"
    );
}

/// Deliveries accepted together on a database 0.1 wrote (they share a
/// commit as they arrive): the body 0.1 accepted is a duplicate, and the
/// others are stored with their jobs.
#[tokio::test]
async fn a_body_0_1_accepted_sent_with_new_ones_is_the_only_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::connect(&sqlite_url(&release_0_1_sqlite(&dir))).await.unwrap();
    let bodies: Vec<Vec<u8>> = std::iter::once(b"{\"action\":\"opened\"}".to_vec())
        .chain((1..=3).map(|n| format!("{{\"action\":\"opened\",\"number\":{n}}}").into_bytes()))
        .collect();
    let macs: Vec<[u8; 32]> = bodies.iter().map(|b| common::mac_of(b)).collect();
    let accept = |n: usize| {
        let store = store.clone();
        let signed = Signed { body: &bodies[n], mac: &macs[n] };
        async move { store.accept_signed(&format!("batch-{n}"), "pull_request", signed, &[job(20 + n as u64)]).await }
    };
    let (resent, one, two, three) = tokio::join!(accept(0), accept(1), accept(2), accept(3));
    assert_eq!(resent.unwrap(), Accepted::Duplicate, "a body accepted by 0.1 is recognised by its digest");
    for new in [one, two, three] {
        assert_eq!(new.unwrap(), Accepted::New { jobs: 1 });
    }
    assert_eq!(store.deliveries().await.unwrap(), 5);
}

#[tokio::test]
async fn sqlite_baseline_makes_the_schema_release_0_1_made() {
    let dir = tempfile::tempdir().unwrap();
    let adopted = release_0_1_sqlite(&dir);
    Store::connect(&sqlite_url(&adopted)).await.unwrap();
    let fresh = dir.path().join("fresh.db");
    Store::connect(&sqlite_url(&fresh)).await.unwrap();
    let (adopted_columns, adopted_indexes) = sqlite_schema(&adopted).await;
    let (fresh_columns, fresh_indexes) = sqlite_schema(&fresh).await;
    assert_eq!(fresh_columns.len(), 103, "{fresh_columns:#?}");
    assert_eq!(fresh_columns, adopted_columns);
    assert_eq!(fresh_indexes, adopted_indexes);
}

/// The refusal to open a copy of the 0.1 fixture on which `sql` has run (`sql` leaves `gh_schema` at steps 0.1 never recorded).
async fn open_with_legacy_steps(sql: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = release_0_1_sqlite(&dir);
    let pool = sqlite_pool(&path).await;
    sqlx::query(sqlx::AssertSqlSafe(sql.to_string())).execute(&pool).await.unwrap();
    pool.close().await;
    let err = Store::connect(&sqlite_url(&path)).await.expect_err("refused");
    format!("{err:#}")
}

#[tokio::test]
async fn sqlite_database_at_an_unknown_legacy_step_is_refused() {
    let partial = open_with_legacy_steps("DELETE FROM gh_schema WHERE step = 19").await;
    assert!(partial.contains("gh_schema records 19 schema steps (the last: 18)"), "{partial}");
    assert!(partial.contains("gatehouse.db"), "the message names the database: {partial}");
    assert!(partial.contains("Open it once with the gatehouse release that made it"), "{partial}");
    let newer = open_with_legacy_steps("INSERT INTO gh_schema (step) VALUES (20)").await;
    assert!(newer.contains("gh_schema records 21 schema steps (the last: 20)"), "{newer}");
}

#[tokio::test]
async fn sqlite_changed_migration_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gatehouse.db");
    Store::connect(&sqlite_url(&path)).await.unwrap();
    let pool = sqlite_pool(&path).await;
    sqlx::query("UPDATE _sqlx_migrations SET checksum = X'00' WHERE version = 1").execute(&pool).await.unwrap();
    pool.close().await;
    let err = format!("{:#}", Store::connect(&sqlite_url(&path)).await.expect_err("refused"));
    assert!(err.contains("cannot migrate sqlite://"), "{err}");
    assert!(err.contains("migration 1 was previously applied but has been modified"), "{err}");
}

/// A pool on `schema` of the test database, the schema created first.
async fn postgres_pool(url: &str, schema: &str) -> PgPool {
    let admin = PgPool::connect(url).await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA IF NOT EXISTS {schema}"))).execute(&admin).await.unwrap();
    admin.close().await;
    let options: PgConnectOptions = url.parse().unwrap();
    PgPoolOptions::new().max_connections(2).connect_with(options.options([("search_path", schema)])).await.unwrap()
}

/// `schema` brought to gatehouse 0.1's shape by its 20 steps, with two
/// deliveries as 0.1 stored them: one unsigned, one signed, known by the
/// digest of its event name and body.
async fn release_0_1_postgres(url: &str, schema: &str) {
    let pool = postgres_pool(url, schema).await;
    let steps = std::fs::read_to_string(fixture("release-0.1-postgres.sql")).unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(steps)).execute(&pool).await.unwrap();
    let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"pull_request\0{\"action\":\"opened\"}"));
    sqlx::query(
        "INSERT INTO gh_deliveries (id, event, received_at, digest) VALUES ('legacy-1', 'ping', 1, NULL), \
         ('legacy-2', 'pull_request', 2, $1)",
    )
    .bind(digest)
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
}

async fn postgres_schema(url: &str, schema: &str) -> (Vec<Column>, Vec<Index>) {
    let pool = postgres_pool(url, schema).await;
    let columns = sqlx::query_as(
        "SELECT c.table_name::TEXT AS table_name, c.column_name::TEXT AS column_name, c.data_type::TEXT AS data_type, \
         c.is_nullable = 'NO' AS not_null, c.column_default::TEXT AS default_value, \
         CAST(COALESCE((SELECT k.ordinal_position FROM information_schema.key_column_usage k \
           JOIN information_schema.table_constraints t ON t.constraint_name = k.constraint_name \
           AND t.table_schema = k.table_schema WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_schema = c.table_schema \
           AND k.table_name = c.table_name AND k.column_name = c.column_name), 0) AS BIGINT) AS primary_key \
         FROM information_schema.columns c WHERE c.table_schema = $1 AND c.table_name LIKE 'gh%' \
         AND c.table_name <> 'gh_schema' ORDER BY c.table_name, c.ordinal_position",
    )
    .bind(schema)
    .fetch_all(&pool)
    .await
    .unwrap();
    let indexes = sqlx::query_as(
        "SELECT t.relname::TEXT AS table_name, i.relname::TEXT AS index_name, x.indisunique AS is_unique, \
         (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n) \
           JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns \
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid \
         JOIN pg_namespace s ON s.oid = t.relnamespace \
         WHERE s.nspname = $1 AND t.relname LIKE 'gh%' AND t.relname <> 'gh_schema' ORDER BY t.relname, i.relname",
    )
    .bind(schema)
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    (columns, indexes)
}

async fn recorded_migrations(url: &str, schema: &str) -> Vec<i64> {
    let pool = postgres_pool(url, schema).await;
    let versions =
        sqlx::query_scalar("SELECT version FROM _sqlx_migrations ORDER BY version").fetch_all(&pool).await.unwrap();
    pool.close().await;
    versions
}

#[tokio::test]
async fn release_0_1_postgres_schema_is_adopted_with_its_data() {
    let Some(url) = common::postgres_url() else { return };
    let (legacy, fresh) = (common::unique_schema(), common::unique_schema());
    release_0_1_postgres(&url, &legacy).await;
    let store = Store::connect_in_schema(&url, Some(&legacy)).await.expect("the 0.1 schema opens");
    assert_eq!(store.deliveries().await.unwrap(), 2);
    assert_eq!(store.accept("legacy-1", "ping", &[]).await.unwrap(), Accepted::Duplicate);
    let body: &[u8] = b"{\"action\":\"opened\"}";
    let mac = common::mac_of(body);
    let resent = store.accept_signed("resent", "pull_request", Signed { body, mac: &mac }, &[job(3)]).await.unwrap();
    assert_eq!(resent, Accepted::Duplicate, "a body accepted by 0.1 is recognised by its digest");
    assert_eq!(store.accept("d-2", "pull_request", &[job(3)]).await.unwrap(), Accepted::New { jobs: 1 });
    assert_eq!(store.claim("w", Duration::from_secs(30)).await.unwrap().expect("a job").pr(), Some(PrNumber(3)));
    Store::connect_in_schema(&url, Some(&legacy)).await.expect("an adopted schema opens again");
    assert_eq!(recorded_migrations(&url, &legacy).await, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    Store::connect_in_schema(&url, Some(&fresh)).await.unwrap();
    let (legacy_columns, legacy_indexes) = postgres_schema(&url, &legacy).await;
    let (fresh_columns, fresh_indexes) = postgres_schema(&url, &fresh).await;
    assert_eq!(fresh_columns.len(), 108, "{fresh_columns:#?}");
    assert_eq!(fresh_columns, legacy_columns);
    assert_eq!(fresh_indexes, legacy_indexes);
}

#[tokio::test]
async fn postgres_schema_at_an_unknown_legacy_step_is_refused() {
    let Some(url) = common::postgres_url() else { return };
    let schema = common::unique_schema();
    release_0_1_postgres(&url, &schema).await;
    let pool = postgres_pool(&url, &schema).await;
    sqlx::query("DELETE FROM gh_schema WHERE step >= 15").execute(&pool).await.unwrap();
    pool.close().await;
    let err = format!("{:#}", Store::connect_in_schema(&url, Some(&schema)).await.expect_err("refused"));
    assert!(err.contains("gh_schema records 15 schema steps (the last: 14)"), "{err}");
}

/// Replicas starting at once on one database: each opens, and the baseline
/// is applied (or adopted) once.
async fn replicas_start_together(url: &str, schema: &str) {
    let starts: Vec<_> = (0..4)
        .map(|_| {
            let (url, schema) = (url.to_string(), schema.to_string());
            tokio::spawn(async move { Store::connect_in_schema(&url, Some(&schema)).await.map(|_| ()) })
        })
        .collect();
    for start in starts {
        start.await.unwrap().expect("every replica starts");
    }
    assert_eq!(recorded_migrations(url, schema).await, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
}

#[tokio::test]
async fn postgres_replicas_starting_together_migrate_once() {
    let Some(url) = common::postgres_url() else { return };
    let fresh = common::unique_schema();
    postgres_pool(&url, &fresh).await.close().await;
    replicas_start_together(&url, &fresh).await;
    let legacy = common::unique_schema();
    release_0_1_postgres(&url, &legacy).await;
    replicas_start_together(&url, &legacy).await;
}
