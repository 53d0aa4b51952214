resource "null_resource" "foo" {}
