bundle
