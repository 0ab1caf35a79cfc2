module certgate.dev/tools/oracles/fielderrors

go 1.26.0

require k8s.io/apimachinery v0.36.3
