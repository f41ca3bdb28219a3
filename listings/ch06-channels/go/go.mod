module ch06channels

go 1.27
