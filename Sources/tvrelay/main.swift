// Placeholder until the relay's server lands.
