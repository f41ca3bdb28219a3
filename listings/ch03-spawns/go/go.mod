module ch03spawns

go 1.27
