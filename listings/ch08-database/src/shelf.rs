//! The bookshelf: authors, books and reviews, made by the database itself from
//! `generate_series` and a seed, so that every answer can be computed here and
//! checked ([`Shelf::book`], [`Shelf::stars_at_least`]).

use measure::mix;
use sqlx::PgConnection;

/// The sizes of the tables and the seed that places books with authors and
/// reviews with books.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Shelf {
    pub authors: i32,
    pub books: i32,
    pub reviews: i32,
    pub seed: i32,
}

/// One book as a page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Book {
    pub id: i32,
    pub title: String,
    pub author: String,
}

impl Book {
    /// What the checks compare: a digest of every field.
    pub fn digest(&self) -> u64 {
        let mut h = mix(self.id as u64);
        for b in self.title.bytes().chain([0]).chain(self.author.bytes()) {
            h = mix(h ^ b as u64);
        }
        h
    }
}

/// A page's digest: its books' digests, in order.
pub fn page_digest(books: &[Book]) -> u64 {
    books.iter().fold(0, |h, b| mix(h ^ b.digest()))
}

impl Shelf {
    pub const fn standard(seed: i32) -> Shelf {
        Shelf {
            authors: 1_000,
            books: 10_000,
            reviews: 200_000,
            seed,
        }
    }

    /// The author of book `id`.
    pub fn author_of(&self, id: i32) -> i32 {
        1 + ((id as i64 * 7 + self.seed as i64).rem_euclid(self.authors as i64))
            as i32
    }

    /// Book `id` as the database must return it.
    pub fn book(&self, id: i32) -> Book {
        Book {
            id,
            title: format!("book {id}"),
            author: format!("author {}", self.author_of(id)),
        }
    }

    /// The stars of review `id`, 1 to 5.
    pub fn stars(&self, id: i32) -> i32 {
        1 + ((id as i64 * 13 + self.seed as i64).rem_euclid(5)) as i32
    }

    /// (count, sum of stars) of the reviews with at least `min` stars: the answer
    /// to [`STARS_AT_LEAST`].
    pub fn stars_at_least(&self, min: i32) -> (i64, i64) {
        (1..=self.reviews)
            .map(|r| self.stars(r))
            .filter(|&s| s >= min)
            .fold((0, 0), |(n, sum), s| (n + 1, sum + s as i64))
    }

    /// Creates the tables and fills them; safe to run on a database that has them.
    pub async fn create(&self, conn: &mut PgConnection) -> Result<(), sqlx::Error> {
        let statements = [
            "CREATE EXTENSION IF NOT EXISTS pg_stat_statements".to_string(),
            "DROP TABLE IF EXISTS reviews, books, authors".to_string(),
            "CREATE TABLE authors (id int PRIMARY KEY, name text NOT NULL)"
                .to_string(),
            "CREATE TABLE books (id int PRIMARY KEY, title text NOT NULL, \
             author_id int NOT NULL REFERENCES authors)"
                .to_string(),
            "CREATE TABLE reviews (id int PRIMARY KEY, \
             book_id int NOT NULL REFERENCES books, stars int NOT NULL)"
                .to_string(),
            format!(
                "INSERT INTO authors SELECT i, 'author ' || i FROM generate_series(1, {}) i",
                self.authors
            ),
            format!(
                "INSERT INTO books SELECT i, 'book ' || i, 1 + ((i::int8 * 7 + {}) % {}) \
                 FROM generate_series(1, {}) i",
                self.seed, self.authors, self.books
            ),
            format!(
                "INSERT INTO reviews SELECT i, 1 + ((i::int8 * 31) % {}), \
                 1 + ((i::int8 * 13 + {}) % 5) FROM generate_series(1, {}) i",
                self.books, self.seed, self.reviews
            ),
            "CREATE INDEX reviews_book ON reviews (book_id)".to_string(),
            // What a first read would do later (hint bits, statistics), done now.
            "VACUUM (FREEZE, ANALYZE)".to_string(),
            "CHECKPOINT".to_string(),
        ];
        for sql in &statements {
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql.as_str()))
                .execute(&mut *conn)
                .await?;
        }
        Ok(())
    }
}

/// One book with its author's name, after `$2` seconds spent in the database
/// (`pg_sleep`: a query that waits there, on a lock or a disk read, without using
/// its CPU).
pub const BOOK_AFTER_WAIT: &str = "SELECT b.id, b.title, a.name FROM books b \
     JOIN authors a ON a.id = b.author_id \
     CROSS JOIN LATERAL (SELECT pg_sleep($2)) AS waited WHERE b.id = $1";

/// One book with its author's name.
pub const BOOK: &str = "SELECT b.id, b.title, a.name FROM books b \
     JOIN authors a ON a.id = b.author_id WHERE b.id = $1";

/// A query that keeps a CPU busy: every review read and counted.
pub const STARS_AT_LEAST: &str =
    "SELECT count(*), coalesce(sum(stars), 0)::int8 FROM reviews WHERE stars >= $1";
