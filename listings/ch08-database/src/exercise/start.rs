use sqlx::PgPool;
use std::future::Future;

// ANCHOR: exercise_start
/// Book `id`'s title, and the copies in stock that `stock` (an upstream call) says.
pub async fn title_and_stock(
    pool: &PgPool,
    id: i32,
    stock: impl Future<Output = u32>,
) -> Result<(String, u32), sqlx::Error> {
    let mut conn = pool.acquire().await?;
    let title: String = sqlx::query_scalar("SELECT title FROM books WHERE id = $1")
        .bind(id)
        .fetch_one(&mut *conn)
        .await?;
    let copies = stock.await;
    Ok((title, copies))
}
// ANCHOR_END: exercise_start
