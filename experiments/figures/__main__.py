from experiments.figures.stage import main

main()
