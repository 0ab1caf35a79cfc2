module certgate.dev/tools/oracles/lineproto

go 1.26
