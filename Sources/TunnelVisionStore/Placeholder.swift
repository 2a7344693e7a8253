// The store.
