module certgate.dev/tools/oracles/fielderrors

go 1.26.0

require k8s.io/apimachinery v0.36.3

require certgate.dev/tools/oracles/lineproto v0.0.0

replace certgate.dev/tools/oracles/lineproto => ../_lineproto
