from jsonargparse import CLI

from minigpt.pretrain import setup as pretrain_fn

PARSER_DATA = {"pretrain": pretrain_fn}


def main() -> None:
    CLI(PARSER_DATA)


if __name__ == "__main__":
    main()
