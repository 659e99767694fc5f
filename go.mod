module github.com/dataintegration/terraform-provider-dataintegration

go 1.26.8

require github.com/google/uuid v1.6.0
