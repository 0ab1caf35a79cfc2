module certgate.dev/tools/gotables

go 1.26
