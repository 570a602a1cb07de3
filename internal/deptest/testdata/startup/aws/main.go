// Command aws is the hello world with Kyku's packages that use the AWS SDK
// linked (the provider, the S3 backend, KMS state encryption): what
// linking them costs every start (BenchmarkStartupParts).
package main

import (
	"fmt"

	_ "github.com/kyku/action/internal/provider/aws"
	_ "github.com/kyku/action/internal/statemgr/crypt"
	_ "github.com/kyku/action/internal/statemgr/s3"
)

func main() { fmt.Println("hello") }
