//! `sqlx::migrate!` embeds the files of `migrations/` at build time; cargo
//! reruns it only when a file it knows of changes, so a new migration file
//! asks for a rebuild here.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
