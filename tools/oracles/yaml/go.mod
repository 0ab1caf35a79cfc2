module certgate.dev/tools/oracles/yaml

go 1.26

require gopkg.in/yaml.v3 v3.0.1

require certgate.dev/tools/oracles/lineproto v0.0.0

replace certgate.dev/tools/oracles/lineproto => ../_lineproto
