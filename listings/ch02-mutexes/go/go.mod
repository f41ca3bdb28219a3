module ch02mutexes

go 1.27
