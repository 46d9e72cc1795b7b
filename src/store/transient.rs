//! Which database errors are worth running a job again for: the ones a
//! later attempt can get past without anything changing in the job (a lost
//! connection, a pool that gave up waiting, a transaction the engine chose
//! to abort, a database that is busy or restarting), against the ones that
//! fail the same way every time (a row breaking a constraint, a query the
//! schema does not answer).

/// PostgreSQL SQLSTATEs a retry gets past: serialization_failure, deadlock
/// detected, and the shutdowns (admin, crash, cannot connect now). Every
/// code of class 08 (connection exception) is transient as well.
/// <https://www.postgresql.org/docs/current/errcodes-appendix.html>
const POSTGRES_TRANSIENT: &[&str] = &["40001", "40P01", "57P01", "57P02", "57P03"];

/// SQLite's primary result codes a retry gets past: SQLITE_BUSY (5, another
/// connection holds the lock: `database is locked`) and SQLITE_LOCKED (6).
/// sqlx reports the extended code, whose low byte is the primary one.
/// <https://www.sqlite.org/rescode.html>
const SQLITE_TRANSIENT: &[i64] = &[5, 6];

/// Is `err` a database fault a later attempt can get past?
pub fn is_transient(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::BeginFailed => true,
        sqlx::Error::Database(db) => {
            let Some(code) = db.code() else { return false };
            if db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>().is_some() {
                code.starts_with("08") || POSTGRES_TRANSIENT.contains(&code.as_ref())
            } else {
                code.parse::<i64>().is_ok_and(|extended| SQLITE_TRANSIENT.contains(&(extended & 0xff)))
            }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_faults_are_transient_and_mistakes_are_not() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "reset by peer");
        assert!(is_transient(&sqlx::Error::Io(io)));
        assert!(is_transient(&sqlx::Error::PoolTimedOut));
        assert!(!is_transient(&sqlx::Error::RowNotFound));
        assert!(!is_transient(&sqlx::Error::ColumnNotFound("id".into())));
    }
}
