package protocol

import "errors"

func assertAs(err error, target any) bool { return errors.As(err, target) }
