// Command etcd is the stock etcd server, built from the pinned
// go.etcd.io/etcd/server/v3 in this module's go.mod (see ../build).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
