package httpapi

// function calls a function integration (AWS_PROXY).
func (inv *invocation) function(in *integration) {
	inv.message(500, "Internal Server Error")
}
