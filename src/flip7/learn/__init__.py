"""Training the learned bot R6 (``flip7 train``): self-play games
(:mod:`flip7.learn.selfplay`) and the fit of its value network with PyTorch
(:mod:`flip7.learn.train`). Playing R6 needs numpy only (:mod:`flip7.bots.learned`)."""
