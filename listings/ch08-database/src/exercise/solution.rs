use sqlx::PgPool;
use std::future::Future;

// ANCHOR: exercise_solution
/// Book `id`'s title, and the copies in stock that `stock` (an upstream call) says.
pub async fn title_and_stock(
    pool: &PgPool,
    id: i32,
    stock: impl Future<Output = u32>,
) -> Result<(String, u32), sqlx::Error> {
    // Through the pool: the connection goes back as soon as the row is read.
    let title: String = sqlx::query_scalar("SELECT title FROM books WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await?;
    let copies = stock.await;
    Ok((title, copies))
}
// ANCHOR_END: exercise_solution
