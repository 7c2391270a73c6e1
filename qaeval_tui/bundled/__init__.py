"""The bundled demo systems: a reference hub, a deliberately buggy hub, a lexical retriever and an
offline mechanical judge. They are examples of the adapter and judge protocols, not the product:
the core never imports them, and names them only as the default `module:factory` specs of the config."""
