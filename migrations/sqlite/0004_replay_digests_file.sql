-- The replay digests are indexed in a file of their own beside the
-- database (see src/store/digests.rs), which the acknowledging commit does
-- not fsync; the deliveries keep their digest, from which that file is
-- made when it is missing or cannot be trusted.
DROP INDEX gh_deliveries_digest;
