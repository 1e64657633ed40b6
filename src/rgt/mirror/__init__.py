"""Mirror checkpoints off the rented host while it trains; seed a new host from the mirror."""
